/**
 * The second hardening round of `_redirects` and `_headers` (issue 34, items 8–14), each through
 * the runtime: a folder deployed, then requests as a visitor sends them.
 */
import { describe, expect, it } from 'vitest';
import { authorized, call, deploy, problemOf } from '../support/client';
import { deployed, expectRedirect, site } from './support';
import astroRedirects from '../rules/rules-corpus/astro-docs/_redirects?raw';

describe('placeholder values are encoded for where they land in the target', async () => {
  const domain = 'rules-encoding.example';
  await deployed(domain, {
    'index.html': 'home',
    'fr.html': 'fr',
    _redirects: ['/go u=:u /:u 302', '/q id=:id /fr.html?x=:id 302', '/news/* /blog/:splat 301', '/b/:slug /c/:slug 301', '/to-path p=:p /docs/:p 200'].join('\n'),
  });

  it('never sends a query value as an off-site Location', async () => {
    const response = await site(domain, '/go?u=/evil.example');
    expect(response.headers.get('location') ?? '').not.toMatch(/^[/\\]{2}/);
    expectRedirect(response, 302, '/%2Fevil.example');
    expect((await site(domain, '/go?u=%5Cevil.example')).headers.get('location')).toBe('/%5Cevil.example');
  });

  it('keeps a query value one query value', async () => {
    expectRedirect(await site(domain, '/q?id=%26x%3D1'), 302, '/fr.html?x=%26x%3D1');
    expectRedirect(await site(domain, '/q?id=a%20b'), 302, '/fr.html?x=a%20b');
  });

  it('keeps a path value in the path: "?" and "#" stay encoded, a splat keeps its "/"', async () => {
    expectRedirect(await site(domain, '/news/a%3Fb/c%23d'), 301, '/blog/a%3Fb/c%23d');
    expectRedirect(await site(domain, '/b/caf%C3%A9%20au%20lait'), 301, '/c/caf%C3%A9%20au%20lait');
    expectRedirect(await site(domain, '/b/%2525'), 301, '/c/%2525');
  });
});

describe('the rules files of the served root (the root option)', async () => {
  const domain = 'rules-root.example';
  const files = {
    'dist/index.html': 'home',
    'dist/target.html': 'target',
    'dist/_redirects': '/from-root /target.html 302',
    'dist/_headers': '/*\n  X-From-Root: yes',
    _redirects: '/from-top /target.html 302',
  };
  await deployed(domain, files, { root: 'dist' });

  it('reads the root’s _redirects and _headers and never serves them', async () => {
    expectRedirect(await site(domain, '/from-root'), 302, '/target.html');
    expect((await site(domain, '/from-top')).status).toBe(404);
    expect((await site(domain, '/')).headers.get('x-from-root')).toBe('yes');
    expect((await site(domain, '/_redirects')).status).toBe(404);
    expect((await site(domain, '/_headers')).status).toBe(404);
  });

  it('reads the root’s files on a redeploy without host options, and on a file PUT of one of them', async () => {
    // The top's _redirects is no rules file of this site: not read, so it cannot refuse the deploy.
    const again = await deploy(domain, { ...files, 'dist/_redirects': '/again /target.html 307', _redirects: 'not a rule' });
    expect(again.status, await again.clone().text()).toBe(200);
    expectRedirect(await site(domain, '/again'), 307, '/target.html');
    const put = await authorized(`/v2/sites/${domain}/files/dist/_redirects`, { method: 'PUT', body: '/put /target.html 302' });
    expect(put.status).toBe(200);
    expectRedirect(await site(domain, '/put'), 302, '/target.html');
    expect((await site(domain, '/again')).status).toBe(404);
  });

  it('reads them again when a configuration edit moves the root', async () => {
    const other = 'rules-root-edit.example';
    await deployed(other, files);
    expectRedirect(await site(other, '/from-top'), 302, '/target.html');
    const edit = await authorized(`/v2/sites/${other}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ root: 'dist' }) });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expectRedirect(await site(other, '/from-root'), 302, '/target.html');
    expect((await site(other, '/from-top')).status).toBe(404);
    expect((await site(other, '/_redirects')).status).toBe(404);
  });
});

describe('Netlify’s matching that real sites rely on', async () => {
  const domain = 'rules-netlify.example';
  await deployed(domain, {
    'index.html': 'home',
    'go.html': 'go-get page',
    '404.html': 'not found',
    _redirects: [
      '/pkg/* go-get=1 /go.html 200',
      '/:lang/old /:lang/new 301',
      '/:lang/guide/ /guide-:lang 301',
      '/ /de/ 302! Language=de',
      '/:lang/* /404.html 404',
    ].join('\n'),
  });

  it('takes /pkg for /pkg/* (what go get asks for)', async () => {
    const response = await site(domain, '/pkg?go-get=1');
    expect([response.status, await response.text()]).toEqual([200, 'go-get page']);
  });

  it('normalises the trailing slash before the first matching rule wins', async () => {
    expectRedirect(await site(domain, '/en/old/'), 301, '/en/new');
  });

  it('matches a placeholder rule written with a trailing slash without it', async () => {
    expectRedirect(await site(domain, '/en/guide'), 301, '/guide-en');
    expectRedirect(await site(domain, '/en/guide/'), 301, '/guide-en');
  });

  it('follows the visitor’s preferred language only', async () => {
    expect((await site(domain, '/', { headers: { 'accept-language': 'en-US,en;q=0.9,de;q=0.5' } })).status).toBe(200);
    expectRedirect(await site(domain, '/', { headers: { 'accept-language': 'de-DE,en;q=0.5' } }), 302, '/de/');
  });
});

describe('Vary', async () => {
  const domain = 'rules-vary.example';
  await deployed(
    domain,
    {
      'index.html': '<p>home</p>',
      'page.html': '<p>page</p>',
      'en/index.html': 'english',
      _headers: '/index.html\n  Vary: Origin',
      _redirects: '/en/ /fr/ 302! Language=fr\n/ /us/ 302 Country=us',
    },
    { headers: [{ uri: '/page', fields: { Vary: 'Cookie' } }] },
  );

  const varyOf = async (path: string) => ((await site(domain, path, { headers: { 'accept-encoding': 'gzip' } })).headers.get('vary') ?? '').split(/\s*,\s*/).map((name) => name.toLowerCase());

  it('keeps Accept-Encoding on a compressed answer beside the site’s values, from _headers and from host options', async () => {
    expect((await varyOf('/index.html')).sort()).toEqual(['accept-encoding', 'origin']);
    expect((await varyOf('/page')).sort()).toEqual(['accept-encoding', 'cookie']);
  });

  it('carries what a Language or Country rule reads on every answer of its path, fired or not', async () => {
    const english = await site(domain, '/en/', { headers: { 'accept-language': 'en' } });
    expect(english.status).toBe(200);
    expect(english.headers.get('vary') ?? '').toMatch(/accept-language/i);
    const french = await site(domain, '/en/', { headers: { 'accept-language': 'fr' } });
    expect(french.status).toBe(302);
    expect(french.headers.get('vary') ?? '').toMatch(/accept-language/i);
    const home = await site(domain, '/');
    expect(home.status).toBe(200);
    expect(home.headers.get('vary') ?? '').toMatch(/cf-ipcountry/i);
    expect((await site(domain, '/page')).headers.get('vary') ?? '').not.toMatch(/accept-language|cf-ipcountry/i);
  });
});

describe('_headers fields merge by name, whatever its case', async () => {
  const domain = 'rules-field-case.example';
  await deployed(domain, { 'index.html': 'home', _headers: '/*\n  Cache-Control: public\n  cache-control: max-age=60\n  X-A: 1\n/index.html\n  x-a: 2' });

  it('joins the values of one name with ", "', async () => {
    const home = await site(domain, '/index.html');
    expect(home.headers.get('cache-control')).toBe('public, max-age=60');
  });
});

describe('lines that can never work are refused, every one in one answer', () => {
  it('answers 400 with an errors array naming each file and line', async () => {
    const response = await deploy('rules-refusals.example', {
      'index.html': 'home',
      _headers: ['/a', '  X-Name: caf\u00e9', '/b?x=1', '  X-B: 1', '/c#top', '  X-C: 1', '  Content-Length: 1'].join('\n'),
      _redirects: ['/a /b/:splat 302', '/c%zz /d 302', '/e /f%2 302', '/g/*/x/* /h 302', '/ok /fine 302'].join('\n'),
    });
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.type).toBe('/problems/invalid-rules-file');
    const errors = (problem as { errors?: { file: string; line: number; message: string }[] }).errors ?? [];
    expect(errors.map(({ file, line }) => `${file}:${line}`)).toEqual(['_redirects:1', '_redirects:2', '_redirects:3', '_redirects:4', '_headers:2', '_headers:3', '_headers:5', '_headers:7']);
    for (const error of errors) expect(error.message).toMatch(/\S/);
  });
});

describe('an absolute from written in Unicode', async () => {
  const domain = 'xn--bcher-kva.hardening.example';
  await deployed(domain, { 'index.html': 'home', _redirects: 'https://bücher.hardening.example/old /new 301!\nhttp://BÜCHER.hardening.example/old-http /new 301!' });

  it('matches the punycode request host', async () => {
    expectRedirect(await call(`https://${domain}.localhost/old`, { redirect: 'manual' }), 301, '/new');
    expectRedirect(await site(domain, '/old-http'), 301, '/new');
  });
});

describe("a real site's _redirects deploys unchanged: Astro's documentation (issue 41)", async () => {
  const domain = 'rules-astro.example';
  await deployed(domain, { 'index.html': 'home', _redirects: astroRedirects });

  it('reads `/:lang:/…` as Netlify does: one placeholder for the segment, filled where `:lang:` is written', async () => {
    expectRedirect(await site(domain, '/en/reference/components-reference/'), 301, '/en/guides/syntax-highlighting/');
    expectRedirect(await site(domain, '/fr/tutorials/add-view-transitions'), 301, '/fr/guides/view-transitions/');
    expectRedirect(await site(domain, '/en/install/auto'), 301, '/en/install-and-setup/');
  });
});

describe('colons in a path, read as Netlify reads them', async () => {
  const domain = 'rules-colons.example';
  await deployed(domain, { 'index.html': 'home', _redirects: ['/x:na:me /y/:na 301', '/file.:ext /f 301', '/p/:a-:b/* /c/:a-:b/:splat 302'].join('\n') });

  it('a ":" that starts no segment is text, one that starts a segment a placeholder named by the rest of it', async () => {
    expectRedirect(await site(domain, '/x:na:me'), 301, '/y/:na');
    expectRedirect(await site(domain, '/file.:ext'), 301, '/f');
    expect((await site(domain, '/file.html')).status).toBe(404);
    expectRedirect(await site(domain, '/p/q/r/s'), 302, '/c/q/r/s');
  });
});
