import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyMigratedState } from './support/migrated-state';
import { waitFor } from './support/processes';
import { type Service, freePort, startService } from './support/service';

/**
 * The README's local flow, black-box: `npm start`'s script serves the API over HTTP, `npm run
 * token` signs a token for it, and a folder is deployed, listed, read and unpublished with
 * plain HTTP requests. State goes to a temporary SITEHOST_PERSIST_DIR, and AUTH_SECRET comes
 * from the environment, so the repository's .wrangler/state and .dev.vars are left alone.
 */

const repo = new URL('../..', import.meta.url).pathname;
const timestampForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

let service: Service;
let token: string;

/** What the service printed since it was ready, without colours. */
function logSinceReady(): string {
  const log = stripVTControlCharacters(service.output());
  return log.slice(log.indexOf('Ready on'));
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

interface SiteResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * GET on a hosted site as a browser at `http://<domain>.localhost:<port>/` asks for it: to
 * the service's address with that Host (Node resolves no `*.localhost` name; fetch cannot set Host).
 */
function site(domain: string, path: string): Promise<SiteResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${service.origin}${path}`, { headers: { host: `${domain}.localhost:${service.port}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on('error', reject).end();
  });
}

beforeAll(async () => {
  // As on a new machine: the script applies the D1 migrations first.
  service = await startService({ via: 'npm start', state: 'empty' });
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('the local service (npm start)', () => {
  it('says in a few lines what it did and where it serves, and keeps wrangler\'s own output in a log', () => {
    const output = stripVTControlCharacters(service.output());
    const untilServing = output.slice(0, output.indexOf('Ctrl-C stops.'));
    // npm's own three lines (`> sitehost@0.1.0 start`, the command, a blank) come on top: 30 in all.
    expect(untilServing.split('\n').length).toBeLessThanOrEqual(27);
    const migrations = readdirSync(join(repo, 'schema/migrations')).filter((name) => name.endsWith('.sql')).length;
    // The count, whether this start applied them (an empty state) or found them applied.
    expect(untilServing).toMatch(new RegExp(`Applied ${migrations} D1 migrations to the local database|has all ${migrations} D1 migrations`));
    expect(untilServing).toContain(`Ready on http://127.0.0.1:${service.port}`);
    expect(untilServing).toContain("npm run -s token -- --user 'github|1' --scope deploy,global_read");
    expect(untilServing).toContain(`its whole output: ${join(service.persistDir, 'npm-start.log')}`);
    expect(untilServing).not.toMatch(/NOSENTRY|ENOTFOUND|Request\.cf|Environment Variable|Migrations to be applied/);
    const log = stripVTControlCharacters(readFileSync(join(service.persistDir, 'npm-start.log'), 'utf8'));
    expect(log).toContain('Migrations to be applied');
    expect(log).toContain('env.MAX_FILES ("20000")');
    expect(log).toContain('Ready on');
  });

  it('shows a failed start\'s error in full: a port that is taken', async () => {
    const persistDir = await mkdtemp(join(tmpdir(), 'sitehost-failed-start-'));
    try {
      await copyMigratedState(persistDir);
      const started = await promisify(execFile)(
        process.execPath,
        ['scripts/start.mjs', '--ip', '127.0.0.1', '--inspector-port', String(await freePort())],
        { cwd: repo, env: { ...process.env, PORT: String(service.port), SITEHOST_PERSIST_DIR: persistDir, AUTH_SECRET: service.secret } },
      ).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(started.code).not.toBe(0);
      const stderr = stripVTControlCharacters(started.stderr);
      expect(stderr).toMatch(/\[ERROR\] Address already in use \(127\.0\.0\.1:\d+\)\. Please check that you are not already running a server/);
      expect(stderr).toContain(`npm start: wrangler dev stopped before it served (its output above, also in ${join(persistDir, 'npm-start.log')})`);
    } finally {
      await rm(persistDir, { recursive: true, force: true });
    }
  });

  it('npm run token prints one bare token', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/token.mjs', '--user', 'github|1', '--scope', 'deploy,global_read'],
      { cwd: repo, env: { ...process.env, AUTH_SECRET: service.secret } },
    );
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    token = stdout.trim();
  });

  it('deploys a folder sent as a browser directory upload', async () => {
    const form = new FormData();
    form.append('configuration', JSON.stringify({ fallback: { 200: '/index.html' } }));
    form.append('directory', new File(['<h1>Hello</h1>'], 'dist/index.html', { type: 'text/html' }));
    form.append('directory', new File(['body { color: teal }'], 'dist/css/a.css', { type: 'text/css' }));
    const response = await api('/v2/sites/example.com', { method: 'PUT', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      type: 'site-deploy',
      domain: 'example.com',
      isNewDomain: true,
      hasNewFiles: true,
      hasNewConfiguration: true,
      deploymentId: expect.stringMatching(/^[a-z2-7]{20}$/),
      committedAt: expect.any(String),
      provenance: { credential: 'jwt' },
    });
  });

  it('serves the site at <domain>.localhost, with the host options applied', async () => {
    const page = await site('example.com', '/');
    expect(page.status).toBe(200);
    expect(page.body).toBe('<h1>Hello</h1>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.etag).toMatch(/^"[\w-]{43}"$/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const styles = await site('example.com', '/css/a.css');
    expect(styles.body).toBe('body { color: teal }');
    expect(styles.headers['content-length']).toBe('20');
    // The configuration's single-page fallback.
    expect((await site('example.com', '/some/route')).body).toBe('<h1>Hello</h1>');
    const unknown = await site('nothing-here.example', '/');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('No site is hosted');
  });

  it('serves each of twenty redeploys on the very next request, every file of it, however quickly they follow', async () => {
    for (let version = 1; version <= 20; version++) {
      // Every file served before the change: the location's cache holds the site's record and files.
      expect((await site('example.com', '/')).status).toBe(200);
      expect((await site('example.com', '/css/a.css')).status).toBe(200);
      const form = new FormData();
      form.append('directory', new File([`<h1>Version ${version}</h1>`], 'index.html', { type: 'text/html' }));
      form.append('directory', new File([`body { --version: ${version} }`], 'css/a.css', { type: 'text/css' }));
      expect((await api('/v2/sites/example.com', { method: 'PUT', body: form })).status).toBe(200);
      expect((await site('example.com', '/')).body).toBe(`<h1>Version ${version}</h1>`);
      expect((await site('example.com', '/css/a.css')).body).toBe(`body { --version: ${version} }`);
    }
  });

  it("lists the caller's sites", async () => {
    const response = await api('/v2/sites');
    expect(response.status).toBe(200);
    const sites = (await response.json()) as Record<string, string>[];
    expect(sites).toEqual([{ domain: 'example.com', userId: 'github|1', modified: expect.stringMatching(timestampForm), role: 'owner' }]);
  });

  it("reads the site's configuration", async () => {
    const response = await api('/v2/sites/example.com/configuration');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      domain: 'example.com',
      modified: expect.stringMatching(timestampForm),
      configuration: { fallback: { 200: '/index.html' } },
    });
  });

  it('reads all configurations, then 304 with If-None-Match', async () => {
    const response = await api('/v2/configurations');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([expect.objectContaining({ domain: 'example.com' })]);
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(response.headers.get('last-modified')).toBeTruthy();
    const unchanged = await api('/v2/configurations', { headers: { 'if-none-match': etag! } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
  });

  it('unpublishes the site: 200 with an empty body', async () => {
    const response = await api('/v2/sites/example.com', { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect((await api('/v2/sites/example.com/configuration')).status).toBe(404);
    expect(await (await api('/v2/sites')).json()).toEqual([]);
  });

  it('consumed the notification and certificate queues without errors', async () => {
    const batches = (queue: string) => [...logSinceReady().matchAll(new RegExp(`QUEUE ${queue} (\\d+)/(\\d+)`, 'g'))];
    await waitFor(
      () => batches('sitehost-notifications').length > 0 && batches('sitehost-certificates').length > 0,
      'both queues were consumed',
      15_000,
      [service],
    );
    for (const [line, acknowledged, delivered] of [...batches('sitehost-notifications'), ...batches('sitehost-certificates')]) {
      expect(acknowledged, line).toBe(delivered);
    }
    expect(logSinceReady()).not.toMatch(/error|uncaught|exception|✘/i);
  });
});
