import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/platform/env';
import { settingsOf } from '../../src/platform/settings';
import { siteCoordinator } from '../../src/coordinator/coordinator-client';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { edgeKeys } from '../../src/coordinator/edge/edge-cache';
import { memoryHoldMs, storeWindowMs } from '../../src/coordinator/edge/freshness';
import { serveSite } from '../../src/serving/serve';
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
  it('answers the live record under a version that every change renews', async () => {
    const domain = 'versioned.example';
    await deployed(domain, { 'index.html': 'v1' });
    const coordinator = siteCoordinator(env, domain);
    const first = await coordinator.current(domain, true);
    expect(first.site?.deployment?.fileCount).toBe(1);
    expect(await coordinator.current(domain, true)).toEqual(first);

    await deployed(domain, { 'index.html': 'v2', 'about.html': 'about' });
    const deployed2 = await coordinator.current(domain, true);
    expect(deployed2.version).not.toBe(first.version);
    expect(deployed2.site?.deployment?.fileCount).toBe(2);

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    const unpublished = await coordinator.current(domain, true);
    expect(unpublished.version).not.toBe(deployed2.version);
    expect(unpublished.site).toBeNull();
  });
});

/** The emulated locations: named caches that vitest.config.ts lists in EDGE_LOCAL_CACHES, so a local purge clears them. */
const locationNames = ['location-a', 'location-b', 'location-c'];
const locations = () => Promise.all(locationNames.map((name) => caches.open(name)));

/** Serves `path` of `domain` at `location`, as the Worker does there, with what ran after the response. */
async function servedAt(location: Cache, domain: string, path: string, servingEnv: Env = env, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const url = new URL(`http://${domain}${path}`);
  const response = await serveSite(new Request(url, init), url, servingEnv, ctx, domain, location);
  const answered = new Response(await response.arrayBuffer(), response);
  await waitOnExecutionContext(ctx);
  return answered;
}

/** `env` whose coordinators' answers to `current` reach the caller only once `held` settles: an answer slow on the way back. */
function withHeldAnswers(held: Promise<unknown>): Env {
  return {
    ...env,
    SITES: new Proxy(env.SITES, {
      get(namespace, name) {
        if (name !== 'get') return Reflect.get(namespace, name).bind(namespace);
        return (id: DurableObjectId) => {
          const stub = namespace.get(id);
          return {
            current: async (...args: Parameters<SiteCoordinator['current']>) => {
              const answer = await stub.current(...args);
              await held;
              return answer;
            },
          };
        };
      },
    }),
  } as Env;
}

describe('locations', () => {
  it('serves a warm request in every location with no coordinator, R2 or D1 call', async () => {
    const domain = 'warm-everywhere.example';
    await deployed(domain, { 'index.html': 'home', 'app.js': 'script', 'empty.txt': '' });
    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    const all = await locations();
    const etag = (await servedAt(all[0]!, domain, '/')).headers.get('etag')!;
    const requests: [string, RequestInit?][] = [
      ['/'],
      ['/app.js'],
      ['/app.js', { headers: { range: 'bytes=1-2' } }],
      ['/app.js', { method: 'HEAD' }],
      ['/empty.txt'],
      ['/', { headers: { 'if-none-match': etag } }],
    ];
    // Each location serves each request once: then they are warm there.
    for (const location of all) for (const [path, init] of requests) await servedAt(location, domain, path, countedEnv, init);
    counter.calls.length = 0;
    for (const location of all) {
      for (const [path, init] of requests) expect((await servedAt(location, domain, path, countedEnv, init)).status).toBeLessThan(305);
    }
    expect(counter.calls).toEqual([]);
  });

  it('serves a change in every location on its next request', async () => {
    const domain = 'change-everywhere.example';
    await deployed(domain, { 'index.html': 'v1', 'app.js': 'v1 script' });
    const all = await locations();
    for (const location of all) expect(await (await servedAt(location, domain, '/')).text()).toBe('v1');

    await deployed(domain, { 'index.html': 'v2', 'app.js': 'v2 script' });
    for (const location of all) {
      expect(await (await servedAt(location, domain, '/')).text()).toBe('v2');
      expect(await (await servedAt(location, domain, '/app.js')).text()).toBe('v2 script');
    }

    const edited = await authorized(`/v2/sites/${domain}/configuration`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fallback: '/app.js' }),
    });
    expect(edited.status).toBe(200);
    for (const location of all) expect(await (await servedAt(location, domain, '/route')).text()).toBe('v2 script');

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    for (const location of all) expect(await (await servedAt(location, domain, '/')).text()).toContain('No site is hosted');
  });

  it("never serves from an isolate's memory a record read just before a change's purge", async () => {
    const domain = 'memory-hold.example';
    await deployed(domain, { 'index.html': 'v1' });
    const [location] = await locations();
    expect(await (await servedAt(location!, domain, '/')).text()).toBe('v1');
    // Past the store window of that answer: the next change purges at once.
    await new Promise((resolve) => setTimeout(resolve, storeWindowMs + 150));
    // Read from the location's cache, so held in this isolate's memory...
    expect(await (await servedAt(location!, domain, '/')).text()).toBe('v1');
    // ...and changed at once: its 200 comes only once that memory has run out.
    const edited = await authorized(`/v2/sites/${domain}/configuration`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirects: [{ from: '/', to: '/moved' }] }),
    });
    expect(edited.status).toBe(200);
    expect((await servedAt(location!, domain, '/')).status).toBe(308);
  });

  it('never stores a record answered before a change that reaches the location after it', async () => {
    const domain = 'purge-race.example';
    await deployed(domain, { 'index.html': 'v1' });
    const [location] = await locations();
    let commit!: Promise<void>;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The coordinator answers v1 at once; the answer reaches the location only after v2 is committed, purged and answered.
    const slow = servedAt(location!, domain, '/', withHeldAnswers(released));
    await new Promise((resolve) => setTimeout(resolve, 50));
    commit = deployed(domain, { 'index.html': 'v2' });
    await commit;
    release();
    // That request began before the change answered, so v1 is a right answer for it…
    expect(await (await slow).text()).toBe('v1');
    // …but the location must not keep it.
    expect(await (await servedAt(location!, domain, '/')).text()).toBe('v2');
  });

  it('stores an answer that arrives within the store window', async () => {
    const domain = 'store-window.example';
    await deployed(domain, { 'index.html': 'home' });
    const [location] = await locations();
    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    await servedAt(location!, domain, '/', countedEnv);
    await servedAt(location!, domain, '/', countedEnv);
    expect(counter.calls.filter((call) => call === 'DO.current')).toHaveLength(1);
    expect(storeWindowMs).toBeGreaterThan(0);
  });

  it('asks the coordinator at most once per location per change, however many requests arrive at once', async () => {
    const domain = 'hot.example';
    await deployed(domain, { 'index.html': 'v1' });
    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    const all = await locations();
    const burst = async (body: string) => {
      counter.calls.length = 0;
      const responses = await Promise.all(all.flatMap((location) => Array.from({ length: 20 }, () => servedAt(location, domain, '/', countedEnv))));
      for (const response of responses) expect(await response.text()).toBe(body);
      for (let round = 0; round < 3; round++) for (const location of all) await servedAt(location, domain, '/', countedEnv);
      return counter.calls.filter((call) => call === 'DO.current').length;
    };
    expect(await burst('v1')).toBeLessThanOrEqual(all.length);
    await deployed(domain, { 'index.html': 'v2' });
    expect(await burst('v2')).toBeLessThanOrEqual(all.length);
  });

  it('makes the purges a stopped coordinator left unfinished, at its next alarm', async () => {
    const domain = 'purge-resumed.example';
    await deployed(domain, { 'index.html': 'v1' });
    const [location] = await locations();
    const key = edgeKeys.live(settingsOf(env).edge, domain);
    // As a coordinator that stopped after its commit and before its purges leaves things: the purge
    // pending in its storage, and a location still holding the record the change replaced.
    const stub = env.SITES.get(env.SITES.idFromName(domain));
    // The location asked once (a coordinator that answered no one has nothing to purge).
    expect(await (await servedAt(location!, domain, '/')).text()).toBe('v1');
    await runInDurableObject(stub, (_instance, state) => state.storage.kv.put('purge-pending', domain));
    const replaced = { version: 'replaced', site: null };
    await location!.put(key, new Response(JSON.stringify(replaced), { headers: { 'cache-control': 'max-age=60', 'x-live-version': 'replaced' } }));
    await new Promise((resolve) => setTimeout(resolve, memoryHoldMs + 10));
    expect(await (await servedAt(location!, domain, '/')).text()).toContain('No site is hosted');

    await runInDurableObject(stub, (instance: SiteCoordinator) => instance.alarm());
    expect(await (await servedAt(location!, domain, '/')).text()).toBe('v1');
  });
});
