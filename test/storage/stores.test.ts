/**
 * The stores a deploy writes and the daily runs read, each in its own keys and rows: the stored
 * file index (R2), the pack writer (R2) and the certificates due for a job (D1). One file, one
 * runtime; it never loads the Worker.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listCertificatesDue } from '../../src/storage/certificates';
import { type FileIndex, decodeFileIndex, encodeFileIndex, readFileIndex, writeFileIndex } from '../../src/storage/file-index';
import { PackWriter } from '../../src/storage/pack-writer';
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

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

async function readRange(key: string, offset: number, length: number): Promise<Uint8Array> {
  const object = await env.FILES.get(key, { range: { offset, length } });
  return new Uint8Array(await object!.arrayBuffer());
}

describe('PackWriter', () => {
  it('writes a small pack with one PUT and reads each file back by range', async () => {
    const pack = new PackWriter(env.FILES, 'test/small-pack');
    const a = bytes(100, 1);
    const b = bytes(250, 2);
    const offsetA = await pack.append(a);
    const offsetB = await pack.append(b);
    expect(await pack.finish()).toBe(true);
    expect([offsetA, offsetB]).toEqual([0, 100]);
    expect(await readRange('test/small-pack', offsetB, b.length)).toEqual(b);
  });

  it('streams a pack larger than a part as equal multipart parts, files spanning part boundaries', async () => {
    const partSize = 5 * 1024 * 1024;
    const pack = new PackWriter(env.FILES, 'test/large-pack', partSize);
    const files = [bytes(3_000_000, 3), bytes(4_000_000, 4), bytes(6_000_000, 5), bytes(10, 6)];
    const offsets: number[] = [];
    for (const file of files) offsets.push(await pack.append(file));
    expect(await pack.finish()).toBe(true);
    const head = await env.FILES.head('test/large-pack');
    expect(head!.size).toBe(13_000_010);
    for (const [i, file] of files.entries()) {
      expect(await readRange('test/large-pack', offsets[i]!, file.length)).toEqual(file);
    }
  });

  it('copies what it is given, so callers may reuse their buffer, over more parts than it keeps buffers', async () => {
    const pack = new PackWriter(env.FILES, 'test/reused-buffer-pack', 5 * 1024 * 1024);
    const chunkSize = 1024 * 1024 + 3;
    const scratch = new Uint8Array(chunkSize);
    const chunks = 22;
    for (let i = 0; i < chunks; i++) {
      scratch.set(bytes(chunkSize, i));
      expect(await pack.append(scratch)).toBe(i * chunkSize);
    }
    expect(await pack.finish()).toBe(true);
    for (let i = 0; i < chunks; i++) {
      expect(await readRange('test/reused-buffer-pack', i * chunkSize, chunkSize)).toEqual(bytes(chunkSize, i));
    }
  });

  it('leaves no object behind when aborted, before or after parts were uploaded', async () => {
    const small = new PackWriter(env.FILES, 'test/aborted-small');
    await small.append(bytes(10, 7));
    await small.abort();
    const large = new PackWriter(env.FILES, 'test/aborted-large', 5 * 1024 * 1024);
    await large.append(bytes(12 * 1024 * 1024, 8));
    await large.abort();
    expect((await env.FILES.list({ prefix: 'test/aborted' })).objects).toEqual([]);
  });

  it('drops the last bytes appended while their part is unsent, not once it is uploaded', async () => {
    const partSize = 5 * 1024 * 1024;
    const pack = new PackWriter(env.FILES, 'test/dropped-pack', partSize);
    const kept = bytes(100, 1);
    await pack.append(kept);
    const dropped = await pack.append(bytes(50, 2));
    expect(pack.dropSince(dropped)).toBe(true);
    expect(pack.size).toBe(100);
    const spanning = await pack.append(bytes(partSize, 3));
    // Its first bytes went out with the first part.
    expect(pack.dropSince(spanning)).toBe(false);
    expect(pack.size).toBe(100 + partSize);
    const last = bytes(10, 4);
    const lastOffset = await pack.append(last);
    expect(await pack.finish()).toBe(true);
    expect((await env.FILES.head('test/dropped-pack'))!.size).toBe(110 + partSize);
    expect(await readRange('test/dropped-pack', 0, 100)).toEqual(kept);
    expect(await readRange('test/dropped-pack', lastOffset, 10)).toEqual(last);
  });

  it('stores only the bytes up to a given length: exactly within the unsent part, else up to the end of the uploaded part holding it', async () => {
    const partSize = 5 * 1024 * 1024;
    const within = new PackWriter(env.FILES, 'test/finish-within', partSize);
    const kept = bytes(3_000_000, 1);
    await within.append(kept);
    await within.append(bytes(1_000_000, 2));
    expect(await within.finish(kept.length)).toBe(true);
    expect((await env.FILES.head('test/finish-within'))!.size).toBe(kept.length);

    const across = new PackWriter(env.FILES, 'test/finish-across', partSize);
    const first = bytes(partSize + 100, 3);
    await across.append(first);
    await across.append(bytes(3 * partSize, 4));
    // Ends in the second part, one of four uploaded or filling: the first two stay, whole.
    expect(await across.finish(first.length)).toBe(true);
    expect((await env.FILES.head('test/finish-across'))!.size).toBe(2 * partSize);
    expect(await readRange('test/finish-across', 0, first.length)).toEqual(first);

    const none = new PackWriter(env.FILES, 'test/finish-none', partSize);
    await none.append(bytes(2 * partSize, 5));
    expect(await none.finish(0)).toBe(false);
    expect(await env.FILES.head('test/finish-none')).toBeNull();
  });

  it('writes nothing when nothing was appended', async () => {
    const pack = new PackWriter(env.FILES, 'test/empty-pack');
    await pack.append(new Uint8Array(0));
    expect(await pack.finish()).toBe(false);
    expect(await env.FILES.head('test/empty-pack')).toBeNull();
  });
});

/** The daily renewal run reads a bounded number of due certificates (issue 32): those never tried first, then the least lately tried. */
describe('certificates due for a job', () => {
  // Every site of the database is a candidate: the files sharing this runtime stored sites of their own in DB.
  const db = env.TEST_WHOLE_TABLE_DB;

  it('answers at most `limit`, the ones without a certificate first, then the least lately tried', async () => {
    const site = db.prepare("INSERT INTO sites (domain, user_id, created, modified, configuration_modified) VALUES (?, 'github|due', 1, 1, 1)");
    const certificate = db.prepare("INSERT INTO certificates (domain, status, updated) VALUES (?, 'failed', ?)");
    await db.batch([
      site.bind('due-none.example'),
      site.bind('due-old.example'),
      site.bind('due-older.example'),
      certificate.bind('due-old.example', 2000),
      certificate.bind('due-older.example', 1000),
    ]);
    const now = 10_000_000;
    expect(await listCertificatesDue(db, now, now, now, 2)).toEqual(['due-none.example', 'due-older.example']);
    expect(await listCertificatesDue(db, now, now, now)).toEqual(['due-none.example', 'due-old.example', 'due-older.example']);
  });
});
