import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { siteCoordinator } from '../../src/site/client';
import type { SiteCoordinator } from '../../src/site/coordinator';
import { renewAfterShare, siteLeaseMs } from '../../src/site/freshness';
import worker from '../../src/index';
import { authorized } from '../support/client';
import { CallCounter, metered } from '../support/metered';
import { deployed, site } from './support';

describe('deployments', () => {
  it('shows a new deploy on the next request, every file of it', async () => {
    await deployed('fresh.example', { 'index.html': 'v1 page', 'app.js': 'v1 script' });
    const before = await site('fresh.example', '/');
    expect(await before.text()).toBe('v1 page');
    expect(await (await site('fresh.example', '/app.js')).text()).toBe('v1 script');

    await deployed('fresh.example', { 'index.html': 'v2 page', 'app.js': 'v2 script' });
    const after = await site('fresh.example', '/');
    expect(await after.text()).toBe('v2 page');
    expect(await (await site('fresh.example', '/app.js')).text()).toBe('v2 script');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const revalidated = await site('fresh.example', '/', { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(revalidated.status).toBe(200);
  });

  it('applies a new configuration on the next request', async () => {
    await deployed('fresh-config.example', { 'index.html': 'shell' });
    expect((await site('fresh-config.example', '/route')).status).toBe(404);
    await deployed('fresh-config.example', {}, { fallback: '/index.html' });
    const response = await site('fresh-config.example', '/route');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('shell');
  });

  it('applies configuration edits on the next request, however quickly they follow each other', async () => {
    const domain = 'fresh-edits.example';
    await deployed(domain, { 'index.html': 'shell', 'other.html': 'other' });
    const put = (configuration: unknown) =>
      authorized(`/v2/sites/${domain}/configuration`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(configuration),
      });
    expect((await site(domain, '/route')).status).toBe(404);
    expect((await put({ fallback: '/index.html' })).status).toBe(200);
    expect((await put({ fallback: '/other.html' })).status).toBe(200);
    expect(await (await site(domain, '/route')).text()).toBe('other');
    const patched = await authorized(`/v2/sites/${domain}/configuration`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ headers: [{ fields: { 'x-edited': 'yes' } }] }),
    });
    expect(patched.status).toBe(200);
    const response = await site(domain, '/route');
    expect(await response.text()).toBe('other');
    expect(response.headers.get('x-edited')).toBe('yes');
  });

  it('serves a file put through the files API on the next request', async () => {
    const domain = 'fresh-file.example';
    await deployed(domain, { 'index.html': 'home' });
    expect((await site(domain, '/new.txt')).status).toBe(404);
    const put = await authorized(`/v2/sites/${domain}/files/new.txt`, { method: 'PUT', body: 'new file' });
    expect(put.status).toBe(201);
    expect(await (await site(domain, '/new.txt')).text()).toBe('new file');
    expect((await authorized(`/v2/sites/${domain}/files/new.txt`, { method: 'DELETE' })).status).toBe(200);
    expect((await site(domain, '/new.txt')).status).toBe(404);
  });

  it('shows nothing once the site is unpublished', async () => {
    await deployed('fresh-gone.example', { 'index.html': 'here' });
    expect((await site('fresh-gone.example', '/')).status).toBe(200);
    expect((await authorized('/v2/sites/fresh-gone.example', { method: 'DELETE' })).status).toBe(200);
    expect(await (await site('fresh-gone.example', '/')).text()).toContain('No site is hosted');
  });
});

describe('the coordinator', () => {
  it('sends the site record only when it changed since the version the caller keeps', async () => {
    const domain = 'versioned.example';
    await deployed(domain, { 'index.html': 'v1' });
    const coordinator = siteCoordinator(env, domain);
    const first = await coordinator.current(domain, {});
    expect(first.site?.deployment?.fileCount).toBe(1);
    expect(await coordinator.current(domain, { version: first.version })).toEqual({ version: first.version, leaseMs: siteLeaseMs });
    expect(await coordinator.current(domain, { version: 'another' })).toEqual(first);

    await deployed(domain, { 'index.html': 'v2', 'about.html': 'about' });
    const deployed2 = await coordinator.current(domain, { version: first.version });
    expect(deployed2.version).not.toBe(first.version);
    expect(deployed2.site?.deployment?.fileCount).toBe(2);

    await deployed(domain, {}, { fallback: '/index.html' });
    const configured = await coordinator.current(domain, { version: deployed2.version });
    expect(configured.version).not.toBe(deployed2.version);
    expect(configured.site?.configuration).toEqual({ fallback: '/index.html' });

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    const unpublished = await coordinator.current(domain, { version: configured.version });
    expect(unpublished.version).not.toBe(configured.version);
    expect(unpublished.site).toBeNull();
  });
});

describe('leases', () => {
  it('a change made right after the site was served waits out the lease, then is served at once', async () => {
    const domain = 'leased.example';
    await deployed(domain, { 'index.html': 'v1' });
    expect(await (await site(domain, '/')).text()).toBe('v1'); // this isolate now holds a lease on v1
    const started = Date.now();
    await deployed(domain, { 'index.html': 'v2' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(siteLeaseMs / 2);
    expect(await (await site(domain, '/')).text()).toBe('v2');
  });

  it('holds for a coordinator that restarted while its leases were out', async () => {
    const domain = 'leased-restart.example';
    await deployed(domain, { 'index.html': 'v1' });
    expect(await (await site(domain, '/')).text()).toBe('v1');
    const stub = env.SITES.get(env.SITES.idFromName(domain));
    await expect(runInDurableObject(stub, (_instance, state) => state.abort('restart'))).rejects.toThrow('restart');
    await deployed(domain, { 'index.html': 'v2' });
    expect(await (await site(domain, '/')).text()).toBe('v2');
  });

  it('grants no lease while a change waits, so that no isolate keeps the replaced record', async () => {
    const domain = 'leased-wait.example';
    await deployed(domain, { 'index.html': 'v1' });
    const coordinator = siteCoordinator(env, domain);
    const first = await coordinator.current(domain, {});
    expect(first.leaseMs).toBe(siteLeaseMs);
    const deploying = deployed(domain, { 'index.html': 'v2' });
    await expect.poll(async () => (await coordinator.current(domain, { version: first.version })).leaseMs, { interval: 20 }).toBe(0);
    await deploying;
    const after = await coordinator.current(domain, { version: first.version });
    expect(after.version).not.toBe(first.version);
    expect(after.leaseMs).toBe(siteLeaseMs);
  });
});

describe('lease renewal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renews a lease in the background before it runs out, so that a busy site never waits for its coordinator', async () => {
    const domain = 'renewed.example';
    await deployed(domain, { 'index.html': 'home' });
    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    /** Requests the page and answers how often that asked the coordinator, counting what ran after the response. */
    const coordinatorCallsOfRequest = async () => {
      counter.calls.length = 0;
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(`http://${domain}.localhost/`) as Request<unknown, IncomingRequestCfProperties>, countedEnv, ctx);
      expect(await response.text()).toBe('home');
      await waitOnExecutionContext(ctx);
      return counter.calls.filter((call) => call === 'DO.current').length;
    };

    // Date alone is faked: the isolate's clock, which leases are counted with, moves only when told.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    expect(await coordinatorCallsOfRequest()).toBe(1); // no lease yet
    vi.setSystemTime(start + siteLeaseMs / 2);
    expect(await coordinatorCallsOfRequest()).toBe(0); // within the lease
    vi.setSystemTime(start + siteLeaseMs * renewAfterShare + 10);
    expect(await coordinatorCallsOfRequest()).toBe(1); // still within it, but two thirds gone: renewed after the response
    vi.setSystemTime(start + siteLeaseMs + 10);
    expect(await coordinatorCallsOfRequest()).toBe(0); // past the first lease, within the renewed one
    vi.setSystemTime(start + 10 * siteLeaseMs);
    expect(await coordinatorCallsOfRequest()).toBe(1); // an idle site's lease ran out: the request asks
  });
});

describe('platform calls', () => {
  it('serves a file in the steady state with no coordinator call within a lease, at most one R2 read and no D1 query', async () => {
    const domain = 'steady.example';
    await deployed(domain, { 'index.html': 'home', 'app.js': 'script', 'empty.txt': '' });
    const counter = new CallCounter();
    const stub = env.SITES.get(env.SITES.idFromName(domain));
    await runInDurableObject(stub, (instance: SiteCoordinator) => {
      (instance as unknown as { env: typeof env }).env = metered(env, counter);
    });
    const countedEnv = metered(env, counter);
    const get = async (path: string, init: RequestInit = {}) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://${domain}.localhost${path}`, init);
      const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, countedEnv, ctx);
      await response.arrayBuffer();
      await waitOnExecutionContext(ctx);
      return response;
    };

    const leased = Date.now();
    await get('/'); // the first request of an isolate takes a lease and reads the deployment's index
    counter.calls.length = 0;

    const requests: [string, RequestInit?][] = [
      ['/'],
      ['/app.js'],
      ['/app.js', { headers: { range: 'bytes=1-2' } }],
      ['/app.js', { method: 'HEAD' }],
      ['/empty.txt'],
    ];
    for (const [path, init] of requests) expect((await get(path, init)).status).toBeLessThan(300);
    const etag = (await get('/')).headers.get('etag')!;
    expect((await get('/', { headers: { 'if-none-match': etag } })).status).toBe(304);

    const elapsed = Date.now() - leased;
    const calls = counter.byKind();
    // A lease is renewed once two thirds of it are gone: no call when the requests took less than that.
    expect(calls['DO.current'] ?? 0).toBeLessThanOrEqual(Math.floor(elapsed / (siteLeaseMs * renewAfterShare)));
    // Responses with bytes to send: /, /app.js twice, / again. HEAD, 304 and the empty file read nothing.
    expect(calls['R2.get'] ?? 0).toBeLessThanOrEqual(4);
    expect(Object.keys(calls).filter((call) => !['DO.current', 'R2.get'].includes(call))).toEqual([]);
  });
});
