import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, type SiteResponse, siteAnswer, sharedService, token } from './support/service';

/**
 * The reproductions of the hostile-input defects, run as a careful attacker ran them: against
 * `npm start`. Each ends in a 4xx problem, and the site that was there before is still served
 * byte-identical. (Multipart names, cut bodies and early refusals: deploy-input.test.ts;
 * compression: serving-compression.test.ts.)
 */

const domain = 'hostile.example';
const files: Record<string, string> = {
  'index.html': '<h1>Home</h1>',
  'docs/index.html': '<h1>Docs</h1>',
  'assets/app.css': 'body { color: teal }',
};
const configuration = {
  directories: { resolve: false },
  fallback: { 200: '/index.html' },
  accessControl: { allowOrigin: 'https://app.example' },
  headers: [{ uri: '/assets/{file}', fields: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Asset': '{file}' } }],
};

let service: RunningService;
let owner: string;

/** A request to the hosted site, the path sent exactly as written (fetch would normalise it). */
function fromSite(path: string, headers: Record<string, string> = {}): Promise<SiteResponse> {
  return siteAnswer(service, domain, path, headers);
}

function api(path: string, init: RequestInit & { as?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${init.as ?? owner}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

async function expectProblem(response: Response, status: number): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await response.json()) as Record<string, unknown>;
  expect(problem.status).toBe(status);
  return problem;
}

/** Every file still served as deployed, and the site's records still readable. */
async function expectSiteIntact(): Promise<void> {
  for (const [path, body] of Object.entries(files)) expect((await fromSite(`/${path}`)).body).toBe(body);
  expect((await api(`/v2/sites/${domain}/info`)).status).toBe(200);
  expect(await (await api(`/v2/sites/${domain}/configuration`)).json()).toMatchObject({ configuration });
}

beforeAll(async () => {
  service = await sharedService();
  owner = await token(service, 'github|hostile', 'deploy global_read');
  const form = new FormData();
  form.append('configuration', JSON.stringify(configuration));
  for (const [path, body] of Object.entries(files)) form.append('directory', new File([body], path));
  expect((await api(`/v2/sites/${domain}`, { method: 'PUT', body: form })).status).toBe(200);
}, 120_000);

describe('hostile writes end in a 4xx problem and leave the site as it was', () => {
  it('a __proto__ member in a merge patch of the metadata or the configuration', async () => {
    const metadata = await api(`/v2/sites/${domain}/info`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"metadata":{"__proto__":{"x":"1"}}}',
    });
    await expectProblem(metadata, 400);
    const host = await api(`/v2/sites/${domain}/configuration`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"__proto__":{}}',
    });
    await expectProblem(host, 400);
    await expectSiteIntact();
  });

  it('a configuration nested 2,000 levels deep', async () => {
    const deep = `{"root":${'['.repeat(2000)}${']'.repeat(2000)}}`;
    const put = await api(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: deep });
    expect(await expectProblem(put, 400)).toMatchObject({ limit: 'MAX_JSON_DEPTH', value: 64 });
    await expectSiteIntact();
  });

  it('a token without exp', async () => {
    const unexpiring = await new SignJWT({ scope: 'deploy' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('github|hostile')
      .setIssuer('sitehost')
      .setAudience('sitehost')
      .sign(new TextEncoder().encode(service.secret));
    const response = await api(`/v2/sites/${domain}`, { method: 'DELETE', as: unexpiring });
    await expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expectSiteIntact();
  });

  it('10,001 redirect rules', async () => {
    const redirects = Array.from({ length: 10_001 }, (_, i) => ({ from: `/r${i}`, to: '/' }));
    const put = await api(`/v2/sites/${domain}/configuration`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...configuration, redirects }),
    });
    expect(await expectProblem(put, 413)).toMatchObject({ limit: 'MAX_REDIRECT_RULES', value: 10_000 });
    await expectSiteIntact();
  });
});

describe('serving as a user of the host format expects', () => {
  it('directories.resolve false turns off only the normalising redirect: /docs still redirects to /docs/, "//" is served in place', async () => {
    expect(await fromSite('/')).toMatchObject({ status: 200, body: files['index.html'] });
    expect(await fromSite('/docs')).toMatchObject({ status: 308, headers: { location: '/docs/' } });
    expect(await fromSite('/docs/')).toMatchObject({ status: 200, body: files['docs/index.html'] });
    expect(await fromSite('//docs//')).toMatchObject({ status: 200, body: files['docs/index.html'] });
  });

  it("expands a header rule's variables, and applies no header rule to a miss", async () => {
    const asset = await fromSite('/assets/app.css');
    expect(asset.headers['x-asset']).toBe('app.css');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await fromSite('/assets/missing.css', { accept: 'text/css', 'sec-fetch-dest': 'style' });
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).not.toContain('immutable');
    expect(missing.headers['x-asset']).toBeUndefined();
  });

  it('answers a missing script or a JSON request with 404, and a page navigation with the fallback', async () => {
    expect((await fromSite('/missing.js')).status).toBe(404);
    expect((await fromSite('/app/route', { accept: 'application/json' })).status).toBe(404);
    expect(await fromSite('/app/route', { accept: 'text/html,*/*;q=0.8', 'sec-fetch-dest': 'document' })).toMatchObject({
      status: 200,
      body: files['index.html'],
    });
  });

  it("refuses a path that is not UTF-8 with a problem carrying the site's CORS origin", async () => {
    const response = await fromSite('/%FF');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers['access-control-allow-origin']).toBe('https://app.example');
  });
});
