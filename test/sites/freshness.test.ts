import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { SiteCoordinator } from '../../src/deploy/site-coordinator';
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

  it('shows nothing once the site is unpublished', async () => {
    await deployed('fresh-gone.example', { 'index.html': 'here' });
    expect((await site('fresh-gone.example', '/')).status).toBe(200);
    expect((await authorized('/v2/sites/fresh-gone.example', { method: 'DELETE' })).status).toBe(200);
    expect(await (await site('fresh-gone.example', '/')).text()).toContain('No site is hosted');
  });
});

describe('platform calls', () => {
  it('serves a file in the steady state with one coordinator call, at most one R2 read and no D1 query', async () => {
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

    await get('/'); // the first request of an isolate reads the deployment's index
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

    const calls = counter.byKind();
    expect(calls['DO.current']).toBe(requests.length + 2);
    // Responses with bytes to send: /, /app.js twice, / again. HEAD, 304 and the empty file read nothing.
    expect(calls['R2.get'] ?? 0).toBeLessThanOrEqual(4);
    expect(Object.keys(calls).filter((call) => !['DO.current', 'R2.get'].includes(call))).toEqual([]);
  });
});
