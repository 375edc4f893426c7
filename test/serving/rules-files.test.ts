import { describe, expect, it } from 'vitest';
import { authorized, call, deploy, problemOf } from '../support/client';
import { begin, blobForm, finalize, manifestOf, sendBlobs } from '../support/incremental';
import { deployed, expectRedirect, site } from './support';

const redirects = `
# Netlify's and Cloudflare Pages' forms
/home              /                   301
/old-about         /about              302
/blog/:year/:slug  /posts/:year/:slug  308
/news/*            /blog/:splat
/about             /elsewhere          302
/forced-about      /about              302
/app.js            /moved.js           302!
/spa/*             /index.html         200
/pricing           /pricing-v2.html    200
/shop/*            /closed.html        404
/old-product       /retired.html       410
/store id=:id      /items/:id          301
/list sort=new     /newest             302
/                  /fr/                302! Language=fr
/                  /au/                302! Country=au,nz
/welcome           /bienvenue          302  Language=fr
https://www.redirects.example/*  https://redirects.example/:splat  301!
/missing-target    /nowhere.html       200
`;

const headers = `
/*
  X-Frame-Options: DENY
  X-Robots-Tag: noindex
/assets/*
  Cache-Control: public, max-age=31536000, immutable
/movies/:title
  X-Movie: watching :title
/public/*
  ! X-Robots-Tag
`;

const files = {
  'index.html': 'home',
  'about.html': 'about',
  'app.js': 'old script',
  'pricing-v2.html': 'pricing v2',
  'closed.html': 'shop closed',
  'retired.html': 'retired page',
  'assets/a.css': 'a{}',
  'movies/up.html': 'Up',
  'public/open.txt': 'open',
  '_redirects': redirects,
  '_headers': headers,
};

describe('_redirects and _headers of a deployed folder', async () => {
  const domain = 'redirects.example';
  await deployed(domain, files, { redirects: [{ from: '/json-rule', to: '/from-json', status: 301 }, { from: '/news/{x}', to: '/json-news', status: 301 }] });

  it('redirects with the status written, 301 by default as on Netlify, keeping the query', async () => {
    expectRedirect(await site(domain, '/home'), 301, '/');
    expectRedirect(await site(domain, '/old-about?x=1'), 302, '/about?x=1');
    expectRedirect(await site(domain, '/old-about/'), 302, '/about');
  });

  it('fills :placeholders and :splat', async () => {
    expectRedirect(await site(domain, '/blog/2024/hello'), 308, '/posts/2024/hello');
    expectRedirect(await site(domain, '/blog/2024/hello/'), 308, '/posts/2024/hello');
    expectRedirect(await site(domain, '/news/a/b/c'), 301, '/blog/a/b/c');
  });

  it('tries the files’ rules before the JSON host options, which still apply', async () => {
    expectRedirect(await site(domain, '/news/x'), 301, '/blog/x');
    expectRedirect(await site(domain, '/json-rule'), 301, '/from-json');
  });

  it('lets an existing file shadow a rule without "!", and a forced rule shadow the file', async () => {
    const about = await site(domain, '/about');
    expect([about.status, await about.text()]).toEqual([200, 'about']);
    expectRedirect(await site(domain, '/app.js'), 302, '/moved.js');
  });

  it('rewrites with 200 to a path of the site, the address unchanged', async () => {
    const spa = await site(domain, '/spa/route/42');
    expect([spa.status, await spa.text()]).toEqual([200, 'home']);
    const pricing = await site(domain, '/pricing');
    expect([pricing.status, await pricing.text()]).toEqual([200, 'pricing v2']);
    expect((await site(domain, '/missing-target')).status).toBe(404);
  });

  it('answers 404 and 410 with the rule’s page', async () => {
    const shop = await site(domain, '/shop/shoes');
    expect([shop.status, await shop.text()]).toEqual([404, 'shop closed']);
    const retired = await site(domain, '/old-product');
    expect([retired.status, await retired.text()]).toEqual([410, 'retired page']);
  });

  it('matches query parameters, reading them into placeholders', async () => {
    expectRedirect(await site(domain, '/store?id=42'), 301, '/items/42');
    expectRedirect(await site(domain, '/list?sort=new'), 302, '/newest');
    expect((await site(domain, '/list?sort=old')).status).toBe(404);
  });

  it('applies Language= from Accept-Language and Country= from request.cf.country', async () => {
    expectRedirect(await site(domain, '/', { headers: { 'accept-language': 'fr-CA, en;q=0.5' } }), 302, '/fr/');
    expectRedirect(await site(domain, '/', { cf: { country: 'NZ' } } as RequestInit), 302, '/au/');
    const home = await site(domain, '/', { headers: { 'accept-language': 'de' } });
    expect([home.status, await home.text()]).toEqual([200, 'home']);
    expectRedirect(await site(domain, '/welcome', { headers: { 'accept-language': 'de;q=0.8, fr;q=0.9' } }), 302, '/bienvenue');
    // The preferred language alone counts, as on Netlify.
    expect((await site(domain, '/welcome', { headers: { 'accept-language': 'de;q=0.9, fr;q=0.8' } })).status).toBe(404);
    expect((await site(domain, '/welcome', { headers: { 'accept-language': 'fr;q=0' } })).status).toBe(404);
  });

  it('applies a rule with an absolute from to requests for that host alone: the same folder deployed on the other domain', async () => {
    await deployed('www.redirects.example', files);
    expectRedirect(await call('https://www.redirects.example.localhost/a/b?q=1', { redirect: 'manual' }), 301, 'https://redirects.example/a/b?q=1');
    // The rule names https: a request by http is another origin.
    expect((await site('www.redirects.example', '/a/b')).status).toBe(404);
    expect((await site(domain, '/a/b')).status).toBe(404);
  });

  it('sets _headers fields with placeholders, and detaches with "!"', async () => {
    const asset = await site(domain, '/assets/a.css');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('x-frame-options')).toBe('DENY');
    expect((await site(domain, '/movies/up')).headers.get('x-movie')).toBe('watching up');
    const open = await site(domain, '/public/open.txt');
    expect(open.headers.get('x-robots-tag')).toBeNull();
    expect(open.headers.get('x-frame-options')).toBe('DENY');
  });

  it('does not serve the files themselves', async () => {
    expect((await site(domain, '/_redirects')).status).toBe(404);
    expect((await site(domain, '/_headers')).status).toBe(404);
  });
});

describe('a rules file that cannot be read', () => {
  it('fails the deploy with 400 naming the file and line, and the site stays as it was', async () => {
    const domain = 'bad-rules.example';
    await deployed(domain, { 'index.html': 'v1', _redirects: '/a /b 302' });
    const response = await deploy(domain, { 'index.html': 'v2', _redirects: '/a /b 302\n\n/api/* https://api.upstream.example/:splat 200' });
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem).toMatchObject({ type: '/problems/invalid-rules-file', file: '_redirects', line: 3 });
    expect(problem.detail).toMatch(/^_redirects line 3: .*does not proxy/);
    expect(await (await site(domain, '/')).text()).toBe('v1');
    expectRedirect(await site(domain, '/a'), 302, '/b');
  });

  it('fails an incremental deploy at its finalize, and a file PUT of _headers', async () => {
    const domain = 'bad-rules-incremental.example';
    await deployed(domain, { 'index.html': 'v1' });
    const next = { 'index.html': 'v2', _headers: '/*\n  X-A: b\n  Content-Length: 4' };
    const begun = (await (await begin(domain, await manifestOf(next))).json()) as { id: string };
    expect((await sendBlobs(domain, begun.id, await blobForm(Object.values(next)))).status).toBe(200);
    const finalized = await finalize(domain, begun.id);
    expect(finalized.status).toBe(400);
    expect(await problemOf(finalized)).toMatchObject({ type: '/problems/invalid-rules-file', file: '_headers', line: 3 });
    const put = await authorized(`/v2/sites/${domain}/files/_headers`, { method: 'PUT', body: 'X-A: b' });
    expect(put.status).toBe(400);
    expect(await problemOf(put)).toMatchObject({ file: '_headers', line: 1 });
    expect(await (await site(domain, '/')).text()).toBe('v1');
  });

  it('reads rules that arrive by a file PUT or an incremental deploy', async () => {
    const domain = 'rules-edits.example';
    await deployed(domain, { 'index.html': 'v1' });
    expect((await authorized(`/v2/sites/${domain}/files/_redirects`, { method: 'PUT', body: '/put /target 302' })).status).toBe(201);
    expectRedirect(await site(domain, '/put'), 302, '/target');
    const next = { 'index.html': 'v2', _redirects: '/incremental /target 307' };
    const begun = (await (await begin(domain, await manifestOf(next), undefined, 'live')).json()) as { id: string; missing?: string[] };
    if (begun.missing?.length) {
      await sendBlobs(domain, begun.id, await blobForm(Object.values(next)));
      expect((await finalize(domain, begun.id)).status).toBe(200);
    }
    expectRedirect(await site(domain, '/incremental'), 307, '/target');
    expect((await site(domain, '/put')).status).toBe(404);
  });

  it('keeps the rules through a one-request manifest patch that leaves _redirects alone, reads a patched one, and drops them with it', async () => {
    const domain = 'rules-patch.example';
    const first = await deploy(domain, { 'index.html': 'v1', _redirects: '/kept /target 302' });
    const base = ((await first.json()) as { deploymentId: string }).deploymentId;
    const patch = async (from: string, files: Record<string, string | null>, blobs: string[]) => {
      const body = new FormData();
      body.append('manifest', new Blob([JSON.stringify({ base: from, files, finalize: 'live' })], { type: 'application/json' }));
      for (const [name, value] of await blobForm(blobs)) body.append(name, value);
      const response = await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { deploymentId: string }).deploymentId;
    };
    const second = await patch(base, await manifestOf({ 'index.html': 'v2' }), ['v2']);
    expectRedirect(await site(domain, '/kept'), 302, '/target');
    const third = await patch(second, await manifestOf({ _redirects: '/patched /target 307' }), ['/patched /target 307']);
    expectRedirect(await site(domain, '/patched'), 307, '/target');
    expect((await site(domain, '/kept')).status).toBe(404);
    await patch(third, { _redirects: null }, []);
    expect((await site(domain, '/patched')).status).toBe(404);
  });
});
