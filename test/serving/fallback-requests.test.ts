import { describe, expect, it } from 'vitest';
import { problemOf } from '../support/client';
import { deployed, site } from './support';

/** What a browser sends when it navigates to a page. */
const navigation = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' };

describe('a 200 fallback stands in for pages only', async () => {
  const files = { 'index.html': 'app shell', '404.html': 'custom not found', 'app.js': 'console.log(1)' };
  await deployed('spa-pages.example', files, { fallback: '/index.html' });
  await deployed('spa-and-404.example', files, { fallback: { 200: '/index.html', 404: '/404.html' } });
  await deployed('spa-php.example', files, { fallback: { 200: '/index.html', extensions: ['', 'html', 'php'] } });

  it.each([
    ['a navigation', '/users/42', navigation],
    ['a frame', '/embed/7', { 'sec-fetch-dest': 'iframe' }],
    ['a client without Accept', '/users/42', {}],
    ['curl (Accept: */*)', '/users/42', { accept: '*/*' }],
    ['a directory path', '/users/', navigation],
    ['a missing .html page', '/old/page.html', navigation],
    ['a missing .htm page', '/old/page.htm', { accept: 'text/html' }],
  ])('serves the shell for %s', async (_, path, headers) => {
    const response = await site('spa-pages.example', path, { headers });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('app shell');
  });

  it.each([
    ['a missing script', '/missing.js', {}],
    ['a missing image, even by navigation', '/img/logo.png', navigation],
    ['a path with a dotted last segment', '/users/john.doe', { accept: '*/*' }],
    ['a request for JSON', '/api/users', { accept: 'application/json' }],
    ['a script load', '/chunk', { 'sec-fetch-dest': 'script', accept: '*/*' }],
    ['an image load', '/picture', { 'sec-fetch-dest': 'image', accept: 'image/avif,image/webp,*/*' }],
    ['fetch() from a page', '/api/users', { 'sec-fetch-dest': 'empty', accept: '*/*' }],
  ])('answers 404 for %s', async (_, path, headers) => {
    const response = await site('spa-pages.example', path, { headers });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('app shell');
  });

  it('still serves a file that exists to any request', async () => {
    const response = await site('spa-pages.example', '/app.js', { headers: { accept: 'application/json', 'sec-fetch-dest': 'script' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log(1)');
  });

  it("lets the host's fallback.extensions name more page extensions", async () => {
    expect(await (await site('spa-php.example', '/old/index.php', { headers: navigation })).text()).toBe('app shell');
    expect((await site('spa-php.example', '/missing.js', { headers: navigation })).status).toBe(404);
  });

  it('answers a miss that is no page with the 404 fallback, whose status tells the truth', async () => {
    const script = await site('spa-and-404.example', '/missing.js');
    expect(script.status).toBe(404);
    expect(await script.text()).toBe('custom not found');
    expect(await (await site('spa-and-404.example', '/users/42', { headers: navigation })).text()).toBe('app shell');
  });
});

describe('a request path that is not valid UTF-8', () => {
  it("is refused with 400 and the site's CORS headers, so a script on another origin can read why", async () => {
    await deployed('cors-bad-path.example', { 'index.html': 'x' }, { accessControl: { allowOrigin: 'https://fallback-app.example' } });
    const response = await site('cors-bad-path.example', '/%c3%28', { headers: { origin: 'https://fallback-app.example' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://fallback-app.example');
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path' });
  });
});
