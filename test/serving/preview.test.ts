import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { servePreview } from '../../src/serving/preview';
import type { Deployment, DeployResult } from '../../src/common/api-types';
import { authorized, call, deploy, deployForm, token } from '../support/client';
import { keepDeployments } from '../support/deployments';

function preview(id: string, path = '/', init: RequestInit = {}): Promise<Response> {
  return call(`http://${id}.preview.localhost${path}`, init);
}

async function deployPreview(domain: string, files: Record<string, string>, configuration?: unknown): Promise<Deployment> {
  const response = await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm(files, configuration) });
  expect(response.status).toBe(200);
  return response.json();
}

describe('preview hosts', () => {
  it('serve a deployment that is not live, with its own host options, never indexed', async () => {
    const domain = 'preview-site.example';
    await keepDeployments(domain, 20, 30);
    await deploy(domain, { 'index.html': 'live' });
    const next = await deployPreview(domain, { 'index.html': 'next', 'app.js': 'js' }, { fallback: { 200: '/index.html' } });
    expect(next.live).toBe(false);
    expect(next.previewUrl).toBe(`http://${next.id}.preview.localhost/`);

    const page = await preview(next.id);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('next');
    expect(page.headers.get('x-robots-tag')).toBe('noindex');
    // The preview's configuration applies: its single-page fallback.
    expect(await (await preview(next.id, '/some/route', { headers: { accept: 'text/html' } })).text()).toBe('next');
    expect(await (await call(`http://${domain}/`)).text()).toBe('live');
  });

  it("serve the live deployment's own files too, and a rolled-back one", async () => {
    const domain = 'preview-history.example';
    await keepDeployments(domain, 20, 30);
    const first = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    const second = await (await deploy(domain, { 'index.html': 'two' })).json<DeployResult>();
    expect(await (await preview(first.deploymentId)).text()).toBe('one');
    expect(await (await preview(second.deploymentId)).text()).toBe('two');
  });

  it('serve a deployment of host options alone: its redirects', async () => {
    const configuration = { redirects: [{ from: '/docs', to: 'https://docs.example/', status: 308 }] };
    const { deploymentId } = await (await deploy('preview-redirects.example', {}, configuration)).json<DeployResult>();
    const redirected = await preview(deploymentId, '/docs', { redirect: 'manual' });
    expect(redirected.status).toBe(308);
    expect(redirected.headers.get('location')).toBe('https://docs.example/');
    expect(redirected.headers.get('x-robots-tag')).toBe('noindex');
    expect((await preview(deploymentId, '/')).status).toBe(404);
  });

  it('answer 404, never indexed, for an unknown deployment; ranges and 304s work as on a site', async () => {
    const missing = await preview('aaaaaaaaaaaaaaaaaaaa');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-robots-tag')).toBe('noindex');

    const domain = 'preview-http.example';
    const deployed = await (await deploy(domain, { 'index.html': '0123456789' })).json<DeployResult>();
    const range = await preview(deployed.deploymentId, '/index.html', { headers: { range: 'bytes=2-4' } });
    expect(range.status).toBe(206);
    expect(await range.text()).toBe('234');
    const etag = (await preview(deployed.deploymentId, '/index.html')).headers.get('etag')!;
    const revalidated = await preview(deployed.deploymentId, '/index.html', { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('x-robots-tag')).toBe('noindex');
  });

  it('stop serving a site unpublished, at once, though locations held their records', async () => {
    const domain = 'preview-unpublished.example';
    await keepDeployments(domain, 20, 30);
    const first = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    const second = await (await deploy(domain, { 'index.html': 'two' })).json<DeployResult>();
    for (const { deploymentId } of [first, second]) expect((await preview(deploymentId)).status).toBe(200);
    // Wait for the location to store the records the answers read (stored after answering).
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    for (const { deploymentId } of [first, second]) expect((await preview(deploymentId)).status).toBe(404);
  });

  it('stop serving a collected deployment, at once, though locations held its record', async () => {
    const domain = 'preview-collected.example';
    await keepDeployments(domain, 2);
    const first = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    await deploy(domain, { 'index.html': 'two' });
    expect(await (await preview(first.deploymentId)).text()).toBe('one');
    // Wait for the location to store the record the answer read (stored after answering).
    await new Promise((resolve) => setTimeout(resolve, 100));

    // The third deploy leaves the first out of the two kept.
    await deploy(domain, { 'index.html': 'three' });
    expect((await preview(first.deploymentId)).status).toBe(404);
  });

  it("stop serving a deployment collected while a location was storing the record it had read", async () => {
    const domain = 'preview-race.example';
    await keepDeployments(domain, 2);
    const first = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    await deploy(domain, { 'index.html': 'two' });
    // The location stores the record only after the third deploy collected the first and purged its record everywhere.
    const racing = new Proxy(caches.default, {
      get(target, property) {
        const real = (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target);
        if (property !== 'put') return real;
        return async (key: RequestInfo | URL, response: Response) => {
          if (String(key instanceof Request ? key.url : key).includes('/deployment/')) expect((await deploy(domain, { 'index.html': 'three' })).status).toBe(200);
          return real(key, response);
        };
      },
    });
    const url = new URL(`http://${first.deploymentId}.preview.localhost/`);
    const ctx = createExecutionContext();
    expect(await (await servePreview(new Request(url), url, env, ctx, { id: first.deploymentId }, racing)).text()).toBe('one');
    await waitOnExecutionContext(ctx);
    expect((await preview(first.deploymentId)).status).toBe(404);
  });

  it('cannot be claimed as a site domain', async () => {
    const { env, createExecutionContext } = await import('cloudflare:test');
    const { default: worker } = await import('../../src/index');
    const request = new Request('http://localhost/v2/sites/abc.preview.example.net', {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token()}` },
      body: deployForm({ 'index.html': 'x' }),
    });
    const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, PREVIEW_HOSTNAME: 'preview.example.net' }, createExecutionContext());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: '/problems/invalid-domain', detail: expect.stringContaining('preview hosts') });
  });

  it('serve the newest ready deployment with an alias at its alias host, one per domain and alias', async () => {
    const domain = 'alias-site.example';
    await keepDeployments(domain, 20, 30);
    await deploy(domain, { 'index.html': 'live' });
    const aliased = async (site: string, files: Record<string, string>, alias: string) => {
      const form = deployForm(files);
      form.append('alias', alias);
      return (await authorized(`/v2/sites/${site}?preview=true`, { method: 'PUT', body: form })).json<Deployment>();
    };
    const first = await aliased(domain, { 'index.html': 'branch one' }, 'feature-x');
    const host = new URL(first.aliasUrl!).host;
    expect(host).toMatch(/^feature-x--alias-site-example-[a-z2-7]{13}\.preview\.localhost$/);
    const page = await call(`http://${host}/`);
    expect(await page.text()).toBe('branch one');
    expect(page.headers.get('x-robots-tag')).toBe('noindex');

    // The next deployment with the alias takes its host at once; the first keeps its own preview host.
    const second = await aliased(domain, { 'index.html': 'branch two' }, 'feature-x');
    expect(second.aliasUrl).toBe(first.aliasUrl);
    expect(await (await call(`http://${host}/`)).text()).toBe('branch two');
    expect(await (await preview(first.id)).text()).toBe('branch one');

    // The same alias on another domain is another host; the live site is untouched.
    const elsewhere = await aliased('alias-other.example', { 'index.html': 'other' }, 'feature-x');
    expect(elsewhere.aliasUrl).not.toBe(first.aliasUrl);
    expect(await (await call(elsewhere.aliasUrl!)).text()).toBe('other');
    expect(await (await call(`http://${domain}/`)).text()).toBe('live');

    const unknown = await call(`http://nothing--alias-site-example-aaaaaaaaaaaaa.preview.localhost/`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No deployment here');
    expect(unknown.headers.get('x-robots-tag')).toBe('noindex');
  });

  it("ask the domain's coordinator for a preview, and D1's directory only for the domain, once a location for an alias host", async () => {
    const { env, createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const { default: worker } = await import('../../src/index');
    const { CallCounter, metered } = await import('../support/metered');
    const domain = 'alias-calls.example';
    await keepDeployments(domain, 20, 30);
    const aliased = async (files: Record<string, string>) => {
      const form = deployForm(files);
      form.append('alias', 'calls');
      return (await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: form })).json<Deployment>();
    };
    const served = async (url: string) => {
      const counter = new CallCounter();
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(url) as Request<unknown, IncomingRequestCfProperties>, metered(env, counter), ctx);
      const text = await response.text();
      await waitOnExecutionContext(ctx);
      return { text, d1: counter.calls.filter((call) => call.startsWith('D1.')).length, coordinator: counter.calls.filter((call) => call.startsWith('DO.')) };
    };
    const first = await aliased({ 'index.html': 'calls one' });
    // A preview host on a miss: the directory, then the coordinator's record.
    expect(await served(`http://${first.id}.preview.localhost/`)).toMatchObject({ text: 'calls one', d1: 1, coordinator: expect.arrayContaining(['DO.deployment']) });
    expect(await served(first.aliasUrl!)).toMatchObject({ text: 'calls one', d1: 1, coordinator: expect.arrayContaining(['DO.aliased']) });
    // The location knows the label's domain from now on; the next aliased deploy serves at once.
    await aliased({ 'index.html': 'calls two' });
    expect(await served(first.aliasUrl!)).toMatchObject({ text: 'calls two', d1: 0, coordinator: expect.arrayContaining(['DO.aliased']) });
  });
});
