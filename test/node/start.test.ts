import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's local flow, black-box: `npm start`'s script serves the API over HTTP, `npm run
 * token` signs a token for it, and a folder is deployed, listed, read and unpublished with
 * plain HTTP requests. State goes to a temporary SITEHOST_PERSIST_DIR, and AUTH_SECRET comes
 * from the environment, so the repository's .wrangler/state and .dev.vars are left alone.
 */

const repo = new URL('../..', import.meta.url).pathname;
const secret = randomBytes(32).toString('base64url');
const timestampForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

let server: ChildProcess;
let persistDir: string;
let base: string;
let output = '';
let token: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** What the service printed since it was ready, without colours. */
function logSinceReady(): string {
  const log = stripVTControlCharacters(output);
  return log.slice(log.indexOf('Ready on'));
}

async function waitFor(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (server.exitCode !== null) throw new Error(`The service exited (${server.exitCode}) before ${what}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(`${base}${path}`, { ...init, headers });
}

beforeAll(async () => {
  persistDir = await mkdtemp(join(tmpdir(), 'sitehost-start-'));
  const port = await freePort();
  base = `http://localhost:${port}`;
  // Its own process group, so that stopping it stops wrangler and workerd too.
  server = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: repo,
    env: { ...process.env, PORT: String(port), SITEHOST_PERSIST_DIR: persistDir, AUTH_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  for (const stream of [server.stdout!, server.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('Ready on'), 'it was ready', 60_000);
}, 90_000);

afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid, 'SIGTERM');
    await exited;
  }
  if (persistDir) await rm(persistDir, { recursive: true, force: true });
});

describe('the local service (npm start)', () => {
  it('npm run token prints one bare token', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/token.mjs', '--user', 'github|1', '--scope', 'deploy,global_read'],
      { cwd: repo, env: { ...process.env, AUTH_SECRET: secret } },
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
    });
  });

  it("lists the caller's sites", async () => {
    const response = await api('/v2/sites');
    expect(response.status).toBe(200);
    const sites = (await response.json()) as Record<string, string>[];
    expect(sites).toEqual([{ domain: 'example.com', userId: 'github|1', modified: expect.stringMatching(timestampForm) }]);
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
    );
    for (const [line, acknowledged, delivered] of [...batches('sitehost-notifications'), ...batches('sitehost-certificates')]) {
      expect(acknowledged, line).toBe(delivered);
    }
    expect(logSinceReady()).not.toMatch(/error|uncaught|exception|✘/i);
  });
});
