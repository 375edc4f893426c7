import { describe, expect, it } from 'vitest';
import { cacheControlFor, revalidate } from '../../src/serving/cache-control';

const immutable = 'public, max-age=31536000, immutable';
const html = 'text/html; charset=utf-8';
const other = 'application/octet-stream';

function cacheControlOf(path: string, contentType: string): string {
  return cacheControlFor({ path, contentType, pack: 0, offset: 0, size: 1, hash: 'h', modified: 0 });
}

/** The rules alone; test/serving/http.test.ts shows the headers on served files. */
describe('cache-control of a served file', () => {
  it.each<[string, string, string, string]>([
    // fingerprinted by a bundler: cached for a year
    ['webpack/Parcel lower-case hex', 'assets/app.3f2a9c1b.js', other, immutable],
    ['long hex', 'app.0123456789abcdef0123.css', other, immutable],
    ['hex of digits only', 'bundle.12345678.js', other, immutable],
    ['esbuild upper-case base32', 'app-3F2A9C1B.css', other, immutable],
    ['Rollup/Vite base64url', 'index-Bq5N7sDZ.js', other, immutable],
    ['a hash as the whole name', '3f2a9c1b.woff2', other, immutable],
    ['a hash between other tokens', 'chunk.3f2a9c1b.min.js', other, immutable],
    // HTML names the assets of its deployment: always revalidated
    ['plain HTML', 'index.html', html, revalidate],
    ['fingerprinted HTML', 'page.3f2a9c1b.html', html, revalidate],
    ['HTML by its content type, whatever the name', 'shell.3f2a9c1b.tpl', html, revalidate],
    // names that only look like hashes
    ['no hash', 'app.js', other, revalidate],
    ['a word of 8+ letters', 'components.js', other, revalidate],
    ['hex-looking letters without a digit', 'deadbeef.js', other, revalidate],
    ['upper-case letters without a digit', 'README-ABCDEFGH.md', other, revalidate],
    ['a name with digits', 'mobile1920x1080.png', other, revalidate],
    ['a short number', 'report.2024.pdf', other, revalidate],
    ['base64url of 8 in one letter case', 'index-bq5n7sdz.js', other, revalidate],
    ['base64url longer than 8', 'index-Bq5N7sDZx.js', other, revalidate],
    ['mixed-case hex of 9', 'app.3F2a9c1b0.js', other, revalidate],
    ['a hash as the extension', 'app.3f2a9c1b', other, revalidate],
    ['a hash without extension', '3f2a9c1b', other, revalidate],
    ['a hash in a folder name only', 'v.3f2a9c1b/app.js', other, revalidate],
  ])('%s: %s', (_, path, contentType, expected) => {
    expect(cacheControlOf(path, contentType)).toBe(expected);
  });
});
