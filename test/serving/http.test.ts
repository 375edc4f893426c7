import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { getSite } from '../../src/storage/sites-table';
import { call, problemOf } from '../support/client';
import { deployed, sha256Base64url, site } from './support';

const domain = 'http-rules.example';
const page = '<!doctype html><h1>Hello</h1>';
const text = '0123456789';

describe('HTTP on a hosted site', async () => {
  // The deploy's time, which Last-Modified carries, lies between these two readings of the clock.
  const deployStarted = Date.now();
  await deployed(domain, {
    'index.html': page,
    'digits.txt': text,
    'empty.txt': '',
    'style.css': 'body{}',
    'logo.png': new Uint8Array([137, 80, 78, 71]),
    'app.js': 'console.log(1)',
    'app.3f2a9c1b.js': 'console.log(2)',
    'app-3F2A9C1B.css': 'a{}',
    'index-Bq5N7sDZ.js': 'console.log(3)',
    'mobile1920x1080.jpg': 'jpeg',
    'page.3f2a9c1b.html': '<p>page</p>',
  });
  const deployEnded = Date.now();

  it('serves GET with type, length, validators and nosniff', async () => {
    const response = await site(domain, '/');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(page);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(page.length));
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('etag')).toBe(`"${await sha256Base64url(page)}"`);
    const lastModified = response.headers.get('last-modified')!;
    expect(lastModified).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    // HTTP dates have whole seconds.
    expect(Date.parse(lastModified)).toBeGreaterThanOrEqual(Math.floor(deployStarted / 1000) * 1000);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(deployEnded);
  });

  it('serves a fully qualified Host with its trailing dot as the same site', async () => {
    const response = await call(`http://${domain}.localhost./digits.txt`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(text);
  });

  it.each([
    ['/style.css', 'text/css; charset=utf-8'],
    ['/app.js', 'text/javascript; charset=utf-8'],
    ['/logo.png', 'image/png'],
    ['/digits.txt', 'text/plain; charset=utf-8'],
  ])('sends the Content-Type of %s from the index', async (path, type) => {
    const response = await site(domain, path);
    expect(response.headers.get('content-type')).toBe(type);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const response = await site(domain, '/digits.txt', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('10');
    expect(response.headers.get('etag')).toBe(`"${await sha256Base64url(text)}"`);
    expect(await response.text()).toBe('');
  });

  it('serves an empty file', async () => {
    const response = await site(domain, '/empty.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('0');
    expect(await response.text()).toBe('');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow', async (method) => {
    const response = await site(domain, '/', { method, body: method === 'DELETE' ? undefined : 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await problemOf(response)).toMatchObject({ type: '/problems/method-not-allowed', status: 405 });
  });

  it("answers a page of its own, not the runtime's, when stored bytes are missing", async () => {
    await deployed('lost-pack.example', { 'index.html': '<h1>lost</h1>' });
    const record = await getSite(env.DB, 'lost-pack.example');
    await env.FILES.delete(record!.deployment!.packs);
    const response = await site('lost-pack.example', '/index.html');
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('could not be served');
  });

  it('answers OPTIONS with the methods a site allows', async () => {
    const response = await site(domain, '/digits.txt', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  describe('conditional requests', () => {
    it.each([
      ['the same ETag', async () => `"${await sha256Base64url(text)}"`],
      ['a weak form of it', async () => `W/"${await sha256Base64url(text)}"`],
      ['a list holding it', async () => `"other", "${await sha256Base64url(text)}"`],
      ['*', async () => '*'],
    ])('answers If-None-Match with %s by 304 without a body', async (_, tag) => {
      const response = await site(domain, '/digits.txt', { headers: { 'if-none-match': await tag() } });
      expect(response.status).toBe(304);
      expect(response.headers.get('etag')).toBe(`"${await sha256Base64url(text)}"`);
      expect(response.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
      expect(await response.text()).toBe('');
    });

    it('sends the file when If-None-Match names another version', async () => {
      const response = await site(domain, '/digits.txt', { headers: { 'if-none-match': '"stale"' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(text);
    });

    it('answers If-Modified-Since at or after Last-Modified by 304, before it by 200', async () => {
      const lastModified = (await site(domain, '/digits.txt', { method: 'HEAD' })).headers.get('last-modified')!;
      const same = await site(domain, '/digits.txt', { headers: { 'if-modified-since': lastModified } });
      expect(same.status).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      const older = await site(domain, '/digits.txt', { headers: { 'if-modified-since': earlier } });
      expect(older.status).toBe(200);
    });

    it('lets If-None-Match win over If-Modified-Since', async () => {
      const lastModified = (await site(domain, '/digits.txt', { method: 'HEAD' })).headers.get('last-modified')!;
      const response = await site(domain, '/digits.txt', {
        headers: { 'if-none-match': '"stale"', 'if-modified-since': lastModified },
      });
      expect(response.status).toBe(200);
    });
  });

  describe('byte ranges', () => {
    it.each([
      ['bytes=0-3', '0123', 'bytes 0-3/10'],
      ['bytes=7-', '789', 'bytes 7-9/10'],
      ['bytes=-2', '89', 'bytes 8-9/10'],
      ['bytes=5-100', '56789', 'bytes 5-9/10'],
      ['bytes=-20', text, 'bytes 0-9/10'],
    ])('answers Range %s with 206', async (range, body, contentRange) => {
      const response = await site(domain, '/digits.txt', { headers: { range } });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(contentRange);
      expect(response.headers.get('content-length')).toBe(String(body.length));
      expect(await response.text()).toBe(body);
    });

    it.each(['bytes=10-', 'bytes=50-60', 'bytes=-0'])('answers an unsatisfiable Range %s with 416', async (range) => {
      const response = await site(domain, '/digits.txt', { headers: { range } });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe('bytes */10');
    });

    it('answers any range of an empty file with 416', async () => {
      const response = await site(domain, '/empty.txt', { headers: { range: 'bytes=0-' } });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe('bytes */0');
    });

    it.each(['bytes=0-1,4-5', 'items=0-3', 'bytes=5-2', 'bytes=x-y'])('sends the whole file for Range %s', async (range) => {
      const response = await site(domain, '/digits.txt', { headers: { range } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(text);
    });

    it('honours If-Range: a range of the same version, the whole file of another', async () => {
      const etag = `"${await sha256Base64url(text)}"`;
      const same = await site(domain, '/digits.txt', { headers: { range: 'bytes=0-1', 'if-range': etag } });
      expect(same.status).toBe(206);
      const other = await site(domain, '/digits.txt', { headers: { range: 'bytes=0-1', 'if-range': '"old"' } });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(text);
    });

    it.each(['bytes=0-1', 'bytes=99999-'])(
      'ignores Range on HEAD (%s): 200 with the whole representation\'s headers, as RFC 9110 §14.2 defines range handling for GET only',
      async (range) => {
        const response = await site(domain, '/digits.txt', { method: 'HEAD', headers: { range } });
        expect(response.status).toBe(200);
        expect(response.headers.get('accept-ranges')).toBe('bytes');
        expect(response.headers.get('content-range')).toBeNull();
        expect(response.headers.get('content-length')).toBe('10');
        expect(await response.text()).toBe('');
      },
    );
  });

  describe('Cache-Control', () => {
    it.each(['/', '/app.js', '/mobile1920x1080.jpg', '/page.3f2a9c1b.html'])(
      'has browsers revalidate %s, so a new deploy shows at once',
      async (path) => {
        const response = await site(domain, path);
        expect(response.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
      },
    );

    it.each(['/app.3f2a9c1b.js', '/app-3F2A9C1B.css', '/index-Bq5N7sDZ.js'])(
      'lets browsers keep the fingerprinted asset %s for a year',
      async (path) => {
        const response = await site(domain, path);
        expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      },
    );
  });
});
