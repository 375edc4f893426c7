import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FileIndex, decodeFileIndex, encodeFileIndex, readFileIndex, writeFileIndex } from '../../src/storage/file-index';
import { fuzzParameters } from '../fuzz/settings';

const entry = fc.record({
  path: fc.string({ minLength: 1 }),
  pack: fc.nat(20),
  offset: fc.nat(),
  size: fc.nat(),
  hash: fc.base64String({ minLength: 43, maxLength: 44 }),
  contentType: fc.constantFrom('text/html; charset=utf-8', 'image/webp', 'application/octet-stream', ''),
  modified: fc.constantFrom(0, 1_795_457_673_825, 1_795_457_700_000, Number.MAX_SAFE_INTEGER),
});

const index = fc.record({
  deploymentId: fc.string(),
  created: fc.nat(),
  packs: fc.array(fc.string(), { maxLength: 21 }),
  files: fc.array(entry, { maxLength: 50 }),
});

/** An index of `count` files as a deploy of a realistic site makes it. */
function siteIndex(count: number): FileIndex {
  const files = Array.from({ length: count }, (_, at) => ({
    path: `section-${at % 40}/page-${String(at).padStart(4, '0')}.html`,
    pack: 0,
    offset: at * 20_000,
    size: 20_000,
    hash: 'x'.repeat(43),
    contentType: 'text/html; charset=utf-8',
    modified: 1_795_457_673_825,
  }));
  return { deploymentId: 'deployment-0123456789ab', created: 1_795_457_673_825, packs: ['sites/a.example/packs/p'], files };
}

describe('the stored file index', () => {
  it('decodes to the index it encoded, whatever its files', () => {
    fc.assert(
      fc.property(index, (written) => {
        expect(decodeFileIndex(encodeFileIndex(written))).toEqual(written);
      }),
      fuzzParameters(300),
    );
  });

  it('keeps the rules read from _redirects and _headers with the files', () => {
    const written: FileIndex = {
      ...siteIndex(2),
      rules: {
        redirects: [{ from: '/store', query: [{ name: 'id', variable: 'id' }], to: '/items/{+id}', status: 301, force: true, countries: ['US'] }],
        headers: [{ uri: '/{+splat}', fields: { 'X-Frame-Options': ['DENY'] }, detach: ['X-Robots-Tag'] }],
      },
    };
    expect(decodeFileIndex(encodeFileIndex(written))).toEqual(written);
    expect(decodeFileIndex(encodeFileIndex(siteIndex(2)))).not.toHaveProperty('rules');
  });

  it('takes half the bytes of the index as objects with named members', () => {
    const written = siteIndex(2000);
    expect(encodeFileIndex(written).length).toBeLessThan(JSON.stringify(written).length / 2 + 1000);
  });

  it('still reads an index stored as objects with named members (version 1)', async () => {
    const written = siteIndex(3);
    await env.FILES.put('sites/v1.example/deployments/old.json', JSON.stringify({ version: 1, ...written }));
    expect(await readFileIndex(env.FILES, 'sites/v1.example/deployments/old.json')).toEqual(written);
    await writeFileIndex(env.FILES, 'sites/v1.example/deployments/new.json', written);
    expect(await readFileIndex(env.FILES, 'sites/v1.example/deployments/new.json')).toEqual(written);
  });
});
