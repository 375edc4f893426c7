import { type IncomingHttpHeaders, request } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli, startCli } from './cli/run';
import { type RunningService, sharedService, token } from './support/service';

/**
 * Operators and the API's rate limits, black-box through `npm start` with its own wrangler.toml
 * limits: an `admin` token suspends, resumes and unpublishes through the CLI as an operator
 * would; a flood of API requests from one address is refused with 429 while every hosted site
 * is still served byte-identical.
 */

let service: RunningService;
let work: string;
let owner: string;
let operator: string;
let events: RunningCli;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** GETs `path` on a hosted host (`<host>.localhost`), as a browser does, through node:http (fetch does not let a caller set Host). */
function fromHost(host: string, path = '/', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port: service.port, path, headers: { host: `${host}.localhost:${service.port}`, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }));
    });
    outgoing.on('error', reject).end();
  });
}

/** What a visitor sees, to compare before and after. */
const seen = ({ status, headers, body }: Answer) => ({ status, type: headers['content-type'], etag: headers.etag, body });

function api(path: string, bearer: string | undefined, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (bearer) headers.set('authorization', `Bearer ${bearer}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

/** The environment of a CLI run as `bearer`, without any stored login. */
function as(bearer: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: bearer, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const root = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

/** The next event of `domain` of one of `types`, from the follower started before the test's changes. */
async function nextEvent(domain: string, type: string): Promise<Record<string, unknown>> {
  const line = await events.waitForLine((text) => text.includes(`"domain":"${domain}"`) && text.includes(`"type":"${type}"`));
  const { id: _, ...event } = JSON.parse(line) as Record<string, unknown>;
  return event;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-operators-test-'));
  service = await sharedService();
  owner = await token(service, 'github|site-owner');
  operator = await token(service, 'github|operator', 'admin');
  // From the first event on: no change below can slip in before the subscription.
  events = startCli(['events', '--json', '--last-event-id', '0'], { env: as(await token(service, 'github|ops', 'global_read')) });
}, 120_000);

afterAll(async () => {
  await events?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('an operator', () => {
  it('suspends a site: 451 on its domain and its previews, the owner sees why and cannot deploy; resumed, it is served byte-identical', async () => {
    const domain = 'suspended.example';
    const site = await folder('suspended', { 'index.html': '<h1>Home</h1>', 'css/site.css': 'body { color: teal }' });
    const deployed = await runCli(['deploy', site, '--domain', domain, '--json'], { env: as(owner) });
    expect(deployed.code, deployed.stderr).toBe(0);
    const { deploymentId } = JSON.parse(deployed.stdout) as { deploymentId: string };
    const preview = `${deploymentId}.preview`;
    // Its previews open to anyone, as the site does, so that only the suspension closes them.
    const opened = await runCli(['protect', domain, '--previews', 'public'], { env: as(owner) });
    expect(opened.code, opened.stderr).toBe(0);
    const before = await Promise.all([fromHost(domain), fromHost(domain, '/css/site.css'), fromHost(preview)]);
    expect(before.map((answer) => answer.status)).toEqual([200, 200, 200]);

    const suspended = await runCli(['admin', 'suspend', domain, '--reason', 'Phishing reported (case 4411)'], { env: as(operator) });
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toContain(`Suspended ${domain}`);
    expect(await nextEvent(domain, 'site-suspend')).toEqual({ type: 'site-suspend', domain, reason: 'Phishing reported (case 4411)' });

    for (const answer of await Promise.all([fromHost(domain), fromHost(domain, '/css/site.css'), fromHost(preview)])) {
      expect(answer.status).toBe(451);
      expect(answer.headers.link).toBe(`<http://localhost:${service.port}/>; rel="blocked-by"`);
      expect(answer.body).toContain('This site has been suspended');
    }

    const info = await runCli(['info', domain], { env: as(owner) });
    expect(info.stdout).toMatch(/suspended\s+since .* UTC: Phishing reported \(case 4411\)/);
    await writeFile(join(site, 'index.html'), '<h1>Replaced</h1>');
    const refused = await runCli(['deploy', site, '--domain', domain], { env: as(owner) });
    expect(refused.code).toBe(5);
    expect(refused.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Site suspended: .*Reason: Phishing reported \(case 4411\) \[HTTP 403\]$/);
    const unpublish = await runCli(['delete', domain, '--yes'], { env: as(owner) });
    expect(unpublish.code).toBe(5);

    const resumed = await runCli(['admin', 'resume', domain], { env: as(operator) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await nextEvent(domain, 'site-resume')).toEqual({ type: 'site-resume', domain });
    const after = await Promise.all([fromHost(domain), fromHost(domain, '/css/site.css'), fromHost(preview)]);
    expect(after.map(seen)).toEqual(before.map(seen));
    expect((await runCli(['info', domain], { env: as(owner) })).stdout).not.toMatch(/suspended\s+since/);
  });

  it('alone can: the owner and a global_read token are refused with exit code 3, and nothing changes', async () => {
    const domain = 'not-suspended.example';
    const site = await folder('not-suspended', { 'index.html': '<h1>Mine</h1>' });
    expect((await runCli(['deploy', site, '--domain', domain], { env: as(owner) })).code).toBe(0);
    const before = seen(await fromHost(domain));
    for (const bearer of [owner, await token(service, 'github|reader', 'global_read deploy')]) {
      const suspend = await runCli(['admin', 'suspend', domain, '--reason', 'Mine now'], { env: as(bearer) });
      expect(suspend.code).toBe(3);
      expect(suspend.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Insufficient scope: This needs the scope "admin"/);
      expect((await runCli(['admin', 'resume', domain], { env: as(bearer) })).code).toBe(3);
    }
    expect(seen(await fromHost(domain))).toEqual(before);
  });

  it("unpublishes another user's site after asking, announced as site-delete", async () => {
    const domain = 'unwanted.example';
    const site = await folder('unwanted', { 'index.html': '<h1>Spam</h1>' });
    expect((await runCli(['deploy', site, '--domain', domain], { env: as(owner) })).code).toBe(0);
    const unasked = await runCli(['admin', 'delete', domain], { env: as(operator) });
    expect(unasked.code).toBe(2);
    expect((await fromHost(domain)).status).toBe(200);

    const deleted = await runCli(['admin', 'delete', domain, '--yes'], { env: as(operator) });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await nextEvent(domain, 'site-delete')).toEqual({ type: 'site-delete', domain });
    expect((await fromHost(domain)).status).toBe(404);
    expect((await api(`/v2/sites/${domain}/info`, owner)).status).toBe(404);
  });
});

describe('API rate limits', () => {
  it('refuse a flood from one address with 429 and Retry-After, naming the limit; hosted sites and other clients are still served', async () => {
    const domain = 'flooded.example';
    const site = await folder('flooded', { 'index.html': '<h1>Up</h1>' });
    expect((await runCli(['deploy', site, '--domain', domain], { env: as(owner) })).code).toBe(0);
    const before = seen(await fromHost(domain));
    const limit = 300; // ANONYMOUS_REQUESTS_PER_MINUTE in wrangler.toml
    const flooder = { 'cf-connecting-ip': '203.0.113.9' };

    // Counts are per minute of the clock: however the flood falls across a minute's end, 2 × limit + 1 requests reach a refusal.
    let refusal: Response | undefined;
    let sent = 0;
    while (!refusal && sent <= 2 * limit) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => api('/v2/sites', undefined, { headers: flooder })));
      sent += batch.length;
      for (const response of batch) {
        if (response.status === 429 && !refusal) refusal = response;
        else await response.body?.cancel();
      }
    }
    expect(refusal, `no 429 after ${sent} requests`).toBeDefined();
    expect(sent).toBeGreaterThan(limit);
    expect(refusal!.headers.get('retry-after')).toBe('60');
    expect(refusal!.headers.get('content-type')).toBe('application/problem+json');
    expect(await refusal!.json()).toMatchObject({ type: '/problems/rate-limited', status: 429, limit: 'ANONYMOUS_REQUESTS_PER_MINUTE', value: limit });

    expect(seen(await fromHost(domain, '/', flooder))).toEqual(before);
    expect((await api('/v2/sites', undefined, { headers: { 'cf-connecting-ip': '203.0.113.10' } })).status).toBe(401);
    expect((await api('/v2/sites', owner, { headers: flooder })).status).toBe(200);
  });
});
