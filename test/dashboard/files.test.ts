import { describe, expect, it } from 'vitest';
import { call } from '../support/client';

describe('the dashboard, served from the Worker’s bundle', () => {
  it('answers its page and files with their types, a strong ETag and the security headers', async () => {
    for (const [path, type] of [
      ['/', /^text\/html; charset=utf-8$/],
      ['/dashboard/app.js', /^text\/javascript; charset=utf-8$/],
      ['/dashboard/app.css', /^text\/css; charset=utf-8$/],
      ['/dashboard/icon.svg', /^image\/svg\+xml$/],
    ] as const) {
      const response = await call(`http://localhost${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(type);
      expect(response.headers.get('etag'), path).toMatch(/^"[\w-]{43}"$/);
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect((await response.text()).length, path).toBeGreaterThan(0);
    }
  });

  it('answers 304 to a matching If-None-Match, and the whole file to a stale one', async () => {
    const first = await call('http://localhost/dashboard/app.js');
    const etag = first.headers.get('etag')!;
    const revalidated = await call('http://localhost/dashboard/app.js', { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(await revalidated.text()).toBe('');
    const stale = await call('http://localhost/dashboard/app.js', { headers: { 'if-none-match': '"stale"' } });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(await first.text());
  });

  it('answers HEAD without a body, and 404 problem+json for a file it does not have', async () => {
    const head = await call('http://localhost/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await head.text()).toBe('');
    const missing = await call('http://localhost/dashboard/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
  });

  it('is not served on a hosted site’s host', async () => {
    const response = await call('http://no-dashboard.example.localhost/dashboard/app.js');
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('No site is hosted');
  });
});
