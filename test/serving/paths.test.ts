import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { serveSite } from '../../src/serving/serve';
import { authorized, problemOf } from '../support/client';
import { deployed, site } from './support';

describe('request paths', async () => {
  await deployed('victim.example', { 'index.html': 'victim home', 'docs/page.html': 'victim page', 'café.html': 'accents' });
  await deployed('other.example', { 'index.html': 'OTHER SITE', 'secret.html': 'OTHER SECRET' });

  it.each([
    '/../other.example/secret.html',
    '/%2e%2e/other.example/secret.html',
    '/..%2f..%2fother.example%2fsecret.html',
    '/docs/..%2F..%2F..%2Fsites%2Fother.example%2Fsecret.html',
    '/..%5c..%5cother.example%5csecret.html',
    '/docs/%2e%2e%5c%2e%2e%5csecret.html',
    '//other.example/secret.html',
    '/%252e%252e/other.example/secret.html',
    '/sites/other.example/secret.html',
  ])('never escapes the site for %s', async (path) => {
    const response = await site('victim.example', path);
    expect([308, 400, 404]).toContain(response.status);
    // A normalising redirect stays on the site: a path-absolute Location, never `//host`.
    if (response.status === 308) expect(response.headers.get('location')).toMatch(/^\/(?!\/)/);
    expect(await response.text()).not.toContain('OTHER');
  });

  it('redirects dot segments, doubled slashes and backslashes to the normal path inside the site (directories.resolve)', async () => {
    for (const path of ['/docs/..%2fdocs//page.html', '/docs%5cpage.html']) {
      const response = await site('victim.example', path);
      expect(response.status, path).toBe(308);
      expect(response.headers.get('location')).toBe('/docs/page.html');
    }
  });

  it('serves dot segments and doubled slashes where they resolve with directories.resolve false', async () => {
    await deployed('unresolved.example', { 'index.html': 'home', 'docs/page.html': 'unresolved page' }, { directories: { resolve: false } });
    expect(await (await site('unresolved.example', '/docs/..%2fdocs//page.html')).text()).toBe('unresolved page');
    expect(await (await site('unresolved.example', '/docs%5cpage.html')).text()).toBe('unresolved page');
  });

  it.each([
    ['a NUL', '/index.html%00.txt'],
    ['a control character', '/docs/%0apage.html'],
    ['malformed percent-encoding', '/%zz'],
    ['invalid UTF-8', '/%c3%28'],
  ])('refuses a path with %s with 400', async (_, path) => {
    const response = await site('victim.example', path);
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path', status: 400 });
  });

  it('finds a file whatever the Unicode normalisation of the request', async () => {
    expect(await (await site('victim.example', '/caf%C3%A9.html')).text()).toBe('accents');
    expect(await (await site('victim.example', '/cafe%CC%81.html')).text()).toBe('accents');
  });

  it('answers 404 under /.well-known/acme-challenge/ without serving site files', async () => {
    await deployed('acme-files.example', { 'index.html': 'x', '.well-known/acme-challenge/token': 'SITE FILE' });
    const request = new Request('http://acme-files.example/.well-known/acme-challenge/token');
    const response = await serveSite(request, new URL(request.url), env, createExecutionContext(), 'acme-files.example');
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('SITE FILE');
  });
});

describe('hosts without a site', () => {
  it.each([
    ['an unknown domain', 'unknown.example'],
    ['a name that cannot be a site', 'single-label'],
  ])('answer a plain 404 page for %s', async (_, domain) => {
    const response = await site(domain, '/');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain(`No site is hosted at ${domain}`);
  });

});

describe('a site of host options alone', () => {
  it('redirects as its configuration says, and answers its own 404 for other paths', async () => {
    await deployed('redirect-only.example', {}, { redirects: [{ from: '/old/{path}', to: 'https://paths-new.example/{path}', status: 301 }] });
    const redirected = await site('redirect-only.example', '/old/guide?page=2');
    expect(redirected.status).toBe(301);
    expect(redirected.headers.get('location')).toBe('https://paths-new.example/guide?page=2');

    const missing = await site('redirect-only.example', '/');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('There is no page at this address');
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps redirecting once its last file is deleted', async () => {
    await deployed('emptied.example', { 'index.html': 'home' }, { redirects: [{ from: '/go', to: '/elsewhere', status: 302 }] });
    expect((await authorized('/v2/sites/emptied.example/files/index.html', { method: 'DELETE' })).status).toBe(200);
    const redirected = await site('emptied.example', '/go');
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('/elsewhere');
    expect((await site('emptied.example', '/')).status).toBe(404);
  });
});
