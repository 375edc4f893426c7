import { describe, expect, it } from 'vitest';
import { deploy, problemOf } from '../support/client';
import { deployed, site } from './support';

describe('host options', () => {
  describe('fallback.extensions', () => {
    it('serves about.html for /about by default, and the file itself first', async () => {
      await deployed('extensions.example', { 'index.html': 'home', 'about.html': 'about page', 'notes': 'bare', 'notes.html': 'html notes' });
      expect(await (await site('extensions.example', '/about')).text()).toBe('about page');
      expect(await (await site('extensions.example', '/notes')).text()).toBe('bare');
    });

    it('tries the configured extensions in order', async () => {
      await deployed(
        'custom-extensions.example',
        { 'index.html': 'home', 'about.htm': 'htm page', 'page.html': 'html page' },
        { fallback: { extensions: ['htm'] } },
      );
      expect(await (await site('custom-extensions.example', '/about')).text()).toBe('htm page');
      expect((await site('custom-extensions.example', '/page')).status).toBe(404);
    });
  });

  describe('directories', () => {
    const files = { 'index.html': 'home', 'docs/index.html': 'docs home', 'docs/guide.html': 'guide', 'assets/a.css': 'a{}' };

    it('redirects /docs to /docs/ (trailingSlash "always", the default) keeping the query, and serves its index.html', async () => {
      await deployed('dirs-always.example', files);
      const redirect = await site('dirs-always.example', '/docs?page=2');
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('/docs/?page=2');
      const index = await site('dirs-always.example', '/docs/');
      expect(index.status).toBe(200);
      expect(await index.text()).toBe('docs home');
    });

    it('redirects /docs/ to /docs with trailingSlash "never", and serves the index there', async () => {
      await deployed('dirs-never.example', files, { directories: { trailingSlash: 'never' } });
      const redirect = await site('dirs-never.example', '/docs/');
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('/docs');
      expect(await (await site('dirs-never.example', '/docs')).text()).toBe('docs home');
      expect((await site('dirs-never.example', '/docs/guide/')).headers.get('location')).toBe('/docs/guide');
      expect(await (await site('dirs-never.example', '/')).text()).toBe('home');
    });

    it('redirects GET /pub to /pub/ with resolve false: it turns off only the normalising redirect of dot segments and "//"', async () => {
      await deployed('dirs-unresolved.example', files, { directories: { resolve: false } });
      const redirect = await site('dirs-unresolved.example', '/docs');
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('/docs/');
      expect(await (await site('dirs-unresolved.example', '/docs/')).text()).toBe('docs home');
      expect(await (await site('dirs-unresolved.example', '/docs//guide')).text()).toBe('guide');
    });

    it('never lists a directory', async () => {
      await deployed('no-listing.example', files);
      const response = await site('no-listing.example', '/assets/');
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('a.css');
    });
  });

  describe('fallback', () => {
    const files = { 'index.html': 'app shell', '404.html': 'custom not found', 'real.txt': 'real' };

    it.each([
      ['a path string', '/index.html'],
      ['{"200": path}', { 200: '/index.html' }],
    ])('as %s serves that file with 200 for any path that matches no file', async (_, fallback) => {
      const domain = `spa-${typeof fallback}.example`;
      await deployed(domain, files, { fallback });
      const response = await site(domain, '/users/42/settings');
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('app shell');
      expect(await (await site(domain, '/real.txt')).text()).toBe('real');
    });

    it('as {"404": path} serves that file with status 404', async () => {
      await deployed('custom-404.example', files, { fallback: { 404: '/404.html' } });
      const response = await site('custom-404.example', '/missing');
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toBe('custom not found');
    });

    it('serves other statuses too, and the lowest status whose file exists first', async () => {
      await deployed('fallback-order.example', files, { fallback: { 503: '/404.html', 410: '/gone.html' } });
      const response = await site('fallback-order.example', '/missing');
      expect(response.status).toBe(503);
      expect(await response.text()).toBe('custom not found');
    });

    it('serves the root 404.html with 404 on a miss without any fallback configured, as Netlify, Pages, GitHub Pages and Firebase do', async () => {
      await deployed('default-404.example', files);
      for (const path of ['/missing', '/missing.js']) {
        const response = await site('default-404.example', path);
        expect(response.status, path).toBe(404);
        expect(await response.text()).toBe('custom not found');
      }
      expect(await (await site('default-404.example', '/real.txt')).text()).toBe('real');
    });

    it('lets an explicit 404 fallback win over the root 404.html, and a SPA fallback answer pages before it', async () => {
      await deployed('explicit-404.example', { ...files, 'missing.html': 'explicit 404' }, { fallback: { 404: '/missing.html' } });
      expect(await (await site('explicit-404.example', '/nothing')).text()).toBe('explicit 404');
      await deployed('spa-404.example', files, { fallback: '/index.html' });
      const page = await site('spa-404.example', '/app/route', { headers: { accept: 'text/html' } });
      expect([page.status, await page.text()]).toEqual([200, 'app shell']);
      const asset = await site('spa-404.example', '/missing.js', { headers: { accept: '*/*', 'sec-fetch-dest': 'script' } });
      expect([asset.status, await asset.text()]).toEqual([404, 'custom not found']);
    });

    it('answers a plain 404 when the fallback file does not exist, and the site has no 404.html', async () => {
      await deployed('fallback-missing.example', { 'index.html': 'app shell' }, { fallback: '/nowhere.html' });
      const response = await site('fallback-missing.example', '/missing');
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('Not found');
    });
  });

  describe('accessControl.allowOrigin', () => {
    it('is * by default', async () => {
      await deployed('cors-default.example', { 'index.html': 'x' });
      expect((await site('cors-default.example', '/')).headers.get('access-control-allow-origin')).toBe('*');
    });

    it('sets the configured origin and answers preflight requests', async () => {
      await deployed('cors-origin.example', { 'index.html': 'x' }, { accessControl: { allowOrigin: 'https://app.example' } });
      expect((await site('cors-origin.example', '/')).headers.get('access-control-allow-origin')).toBe('https://app.example');
      const preflight = await site('cors-origin.example', '/index.html', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'range, if-none-match',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('range, if-none-match');
      expect(preflight.headers.get('access-control-max-age')).toBe('86400');
    });
  });

  describe('headers', () => {
    it('adds fields to every response, or to the paths its URI template matches', async () => {
      await deployed(
        'custom-headers.example',
        { 'index.html': 'x', 'assets/app.js': 'js', 'assets/deep/more.js': 'js' },
        {
          headers: [
            { fields: { 'X-Frame-Options': 'DENY' } },
            { uri: '/assets/{file}', fields: { 'Cache-Control': 'public, max-age=60', 'X-Multi': ['a', 'b'] } },
          ],
        },
      );
      const asset = await site('custom-headers.example', '/assets/app.js');
      expect(asset.headers.get('x-frame-options')).toBe('DENY');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=60');
      expect(asset.headers.get('x-multi')).toBe('a, b');
      const deep = await site('custom-headers.example', '/assets/deep/more.js');
      expect(deep.headers.get('x-multi')).toBeNull();
      const page = await site('custom-headers.example', '/');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-multi')).toBeNull();
    });

    it('cannot change the framing of a response: refused, as a _headers file’s line is', async () => {
      const refused = await deploy('framing.example', { 'index.html': 'hello' }, { headers: [{ fields: { 'Content-Length': '1' } }] });
      expect(refused.status).toBe(400);
      expect(await problemOf(refused)).toMatchObject({ errors: [{ pointer: '/headers/0/fields/Content-Length' }] });
    });
  });

  describe('redirects', () => {
    const redirects = [
      { from: '/blog/{slug}', to: '/posts/{slug}' },
      { from: '/old', to: 'https://moved.example/', status: 301 },
      { from: '/docs{/rest*}', to: '/manual{/rest*}', status: 302 },
      { from: '/index.html', to: '/never-reached' },
    ];

    it('redirects with URI template variables, 308 by default, keeping the query', async () => {
      await deployed('option-redirects.example', { 'index.html': 'x', 'blog/a/b.html': 'deep' }, { redirects });
      const response = await site('option-redirects.example', '/blog/hello-world?ref=feed');
      expect(response.status).toBe(308);
      expect(response.headers.get('location')).toBe('/posts/hello-world?ref=feed');
      expect(response.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    });

    it('redirects to absolute URLs with the configured status', async () => {
      await deployed('redirects-absolute.example', { 'index.html': 'x' }, { redirects });
      const response = await site('redirects-absolute.example', '/old');
      expect(response.status).toBe(301);
      expect(response.headers.get('location')).toBe('https://moved.example/');
    });

    it('expands exploded path variables', async () => {
      await deployed('redirects-explode.example', { 'index.html': 'x' }, { redirects });
      const response = await site('redirects-explode.example', '/docs/a/b');
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/manual/a/b');
    });

    it('is tried before files, and a simple {variable} never spans several segments', async () => {
      await deployed('redirects-order.example', { 'index.html': 'x', 'blog/a/b.html': 'deep' }, { redirects });
      expect((await site('redirects-order.example', '/index.html')).headers.get('location')).toBe('/never-reached');
      const deep = await site('redirects-order.example', '/blog/a/b');
      expect(deep.status).toBe(200);
      expect(await deep.text()).toBe('deep');
    });
  });

  describe('manifest', () => {
    const files = {
      'index.html': '<script src=/app.js></script>',
      'app.js': 'import "./chunk.js"',
      'chunk.js': '',
      'style.css': '',
      'font.woff2': '',
      'data.json': '{}',
      'about.html': 'about',
    };

    it('renders the pushes of the file served as preload Link headers, following pushed files', async () => {
      await deployed('manifest.example', files, {
        manifest: [
          { get: '/index.html', push: ['/app.js', '/style.css', '**/*.woff2', '/data.json'] },
          { glob: '/app.js', push: '/chunk.js' },
        ],
      });
      const response = await site('manifest.example', '/');
      const link = response.headers.get('link');
      expect(link?.split(', ').sort()).toEqual(
        [
          '</app.js>; rel=preload; as=script',
          '</chunk.js>; rel=preload; as=script',
          '</style.css>; rel=preload; as=style',
          '</font.woff2>; rel=preload; as=font; crossorigin',
          '</data.json>; rel=preload; as=fetch; crossorigin',
        ].sort(),
      );
      expect((await site('manifest.example', '/app.js')).headers.get('link')).toBe('</chunk.js>; rel=preload; as=script');
      expect((await site('manifest.example', '/about')).headers.get('link')).toBeNull();
    });

    it('sends a push to another origin written with characters outside ASCII as the URI it stands for', async () => {
      const cdn = 'https://cdn.bücher.example/schrift/ü.woff2';
      await deployed('manifest-iri.example', files, { manifest: [{ get: '/index.html', push: cdn }] });
      const link = (await site('manifest-iri.example', '/')).headers.get('link');
      expect(link).toBe('<https://cdn.xn--bcher-kva.example/schrift/%C3%BC.woff2>; rel=preload; as=font; crossorigin');
    });

    it('reads a manifest given as the path of a deployed file', async () => {
      await deployed(
        'manifest-file.example',
        { ...files, 'push.json': JSON.stringify([{ get: '/index.html', push: '/style.css' }]) },
        { manifest: 'push.json' },
      );
      expect((await site('manifest-file.example', '/')).headers.get('link')).toBe('</style.css>; rel=preload; as=style');
    });
  });

  describe('root', () => {
    it('serves a folder of the deployed files as the site, and nothing outside it', async () => {
      await deployed(
        'root.example',
        { 'public/index.html': 'public home', 'public/404.html': 'public 404', 'private/secret.txt': 'SECRET' },
        { root: 'public', fallback: { 404: '/404.html' } },
      );
      expect(await (await site('root.example', '/')).text()).toBe('public home');
      for (const path of ['/private/secret.txt', '/public/index.html']) {
        const response = await site('root.example', path);
        expect(response.status).toBe(404);
        expect(await response.text()).toBe('public 404');
      }
      // A dot segment is sent to its normal form first, which is still inside the root.
      expect((await site('root.example', '/..%2fprivate%2fsecret.txt')).headers.get('location')).toBe('/private/secret.txt');
    });
  });
});
