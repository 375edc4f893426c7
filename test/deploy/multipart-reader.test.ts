import { env } from 'cloudflare:workers';
import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { type PartHeader, readMultipartFormData } from '../../src/deploy/multipart-reader';
import { type PackedBytes, packedPart } from '../../src/deploy/packed-part';
import { receiveDeploy } from '../../src/deploy/receive';
import { Problem } from '../../src/http/problem';
import { readFileIndex } from '../../src/storage/file-index';
import { PackWriter } from '../../src/storage/pack-writer';
import { getSite } from '../../src/storage/sites-table';
import { authorized, deploy, problemOf } from '../support/client';
import { site } from '../serving/support';

const encoder = new TextEncoder();

function concat(...pieces: (string | Uint8Array)[]): Uint8Array {
  const bytes = pieces.map((piece) => (typeof piece === 'string' ? encoder.encode(piece) : piece));
  const out = new Uint8Array(bytes.reduce((sum, piece) => sum + piece.byteLength, 0));
  let at = 0;
  for (const piece of bytes) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}

/** Deterministic bytes that differ at every offset of a long run, so a misplaced byte shows. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** A byte stream (as a request body is) that hands `body` out in chunks of the given sizes, cycling. */
function chunked(body: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let turn = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      if (at >= body.byteLength) return controller.close();
      const size = sizes[turn++ % sizes.length]!;
      controller.enqueue(body.slice(at, at + size));
      at += size;
    },
  });
}

interface ReadPart {
  header: PartHeader;
  body: string;
}

async function readParts(contentType: string, stream: ReadableStream<Uint8Array>): Promise<ReadPart[]> {
  const parts: ReadPart[] = [];
  await readMultipartFormData(contentType, stream, (header) => {
    const pieces: Uint8Array[] = [];
    return {
      async write(bytes) {
        pieces.push(bytes.slice());
      },
      async end() {
        parts.push({ header, body: new TextDecoder().decode(concat(...pieces)) });
      },
    };
  });
  return parts;
}

const boundary = 'XyZ-boundary';
const contentType = `multipart/form-data; boundary=${boundary}`;
/** Content full of near-misses: line breaks, a header-like block, and the boundary without its line break or cut short. */
const trickyContent = `a\r\n\r\nb\r\n--XyZ-bound\r\n--XyZ-boundarx--XyZ-boundary\r\r\n-\r\n--\r\n`;
const twoParts =
  `--${boundary}\r\ncontent-disposition: form-data; name="configuration"\r\n\r\n{"root":"/"}\r\n` +
  `--${boundary}\r\ncontent-disposition: form-data; name="directory"; filename="site/a.txt"\r\n` +
  'content-type: text/x-odd; charset=latin1\r\n\r\n' +
  `${trickyContent}\r\n--${boundary}--\r\n`;
const twoPartsRead: ReadPart[] = [
  { header: { name: 'configuration', filename: undefined, mediaType: undefined }, body: '{"root":"/"}' },
  { header: { name: 'directory', filename: 'site/a.txt', mediaType: 'text/x-odd' }, body: trickyContent },
];

async function refusal(promise: Promise<unknown>): Promise<Problem> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Problem);
  return error as Problem;
}

describe('multipart reader: framing', () => {
  it('reads the same parts whatever the reads cut, boundaries and header ends included', async () => {
    const body = encoder.encode(twoParts);
    for (const sizes of [[1], [2], [3], [5, 1], [7, 13, 1], [64], [body.byteLength]]) {
      expect(await readParts(contentType, chunked(body, sizes))).toEqual(twoPartsRead);
    }
    for (let cut = 1; cut < body.byteLength; cut++) {
      expect(await readParts(contentType, chunked(body, [cut, body.byteLength]))).toEqual(twoPartsRead);
    }
  });

  it('takes a quoted boundary, ignores a preamble and an epilogue, and reads empty parts', async () => {
    const quoted = 'with space; and=signs';
    const file = (name: string) => `--${quoted}\r\ncontent-disposition: form-data; name="directory"; filename="${name}"\r\n\r\n`;
    const body = `This is the preamble.\r\n${file('empty.txt')}\r\n${file('b.txt')}b\r\n--${quoted}--\r\nThis is the epilogue.`;
    const parts = await readParts(`multipart/form-data; boundary="${quoted}"`, chunked(encoder.encode(body), [3]));
    expect(parts.map(({ header, body }) => [header.filename, body])).toEqual([
      ['empty.txt', ''],
      ['b.txt', 'b'],
    ]);
  });

  it('prefers an RFC 5987 filename* to filename', async () => {
    const disposition = `form-data; name="directory"; filename="caf.html"; filename*=UTF-8''d%C3%A9j%C3%A0/caf%C3%A9.html`;
    const body = `--${boundary}\r\ncontent-disposition: ${disposition}\r\n\r\nx\r\n--${boundary}--`;
    const [part] = await readParts(contentType, chunked(encoder.encode(body), [10]));
    expect(part!.header.filename).toBe('déjà/café.html');
  });

  it('accepts part headers of 8 KiB and refuses larger ones', async () => {
    const headers = (size: number) => {
      const start = 'content-disposition: form-data; name="directory"; filename="a.txt"\r\nx-padding: ';
      return start + 'p'.repeat(size - start.length);
    };
    const body = (size: number) => encoder.encode(`--${boundary}\r\n${headers(size)}\r\n\r\nok\r\n--${boundary}--`);
    expect(await readParts(contentType, chunked(body(8192), [1000]))).toMatchObject([{ body: 'ok' }]);
    const tooLarge = await refusal(readParts(contentType, chunked(body(8193), [1000])));
    expect([tooLarge.kind, tooLarge.detail]).toEqual([
      'invalid-request',
      'The multipart body is malformed: a part has headers larger than 8 KiB.',
    ]);
  });

  it('refuses malformed bodies with 400 invalid-request', async () => {
    const part = `--${boundary}\r\ncontent-disposition: form-data; name="directory"; filename="a.txt"\r\n\r\nA`;
    const cases: [string, string, string][] = [
      ['no boundary', 'multipart/form-data', `${part}\r\n--${boundary}--`],
      ['no opening boundary', contentType, 'just some bytes'],
      ['no closing boundary', contentType, part],
      ['a stream cut inside the headers', contentType, `--${boundary}\r\ncontent-disposition: form-da`],
      ['a boundary followed by other bytes', contentType, `${part}\r\n--${boundary}xx`],
    ];
    for (const [what, type, body] of cases) {
      const init = { method: 'PUT', headers: { 'content-type': type }, body };
      const response = await authorized('/v2/sites/malformed.example', init);
      expect([what, response.status]).toEqual([what, 400]);
      expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-request' });
    }
    expect(await getSite(env.DB, 'malformed.example')).toBeNull();
  });
});

/** A deploy body of one file part with the given header lines, sent as they are. */
function onePartDeploy(domain: string, headerLines: string, content = 'x'): Promise<Response> {
  const body = `--${boundary}\r\n${headerLines}\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return authorized(`/v2/sites/${domain}`, { method: 'PUT', headers: { 'content-type': contentType }, body });
}

/** A part's Content-Disposition as it is read, through the reader alone. */
async function dispositionRead(disposition: string): Promise<PartHeader> {
  const body = `--${boundary}\r\ncontent-disposition: ${disposition}\r\n\r\nx\r\n--${boundary}--`;
  const [part] = await readParts(contentType, chunked(encoder.encode(body), [7]));
  return part!.header;
}

describe('multipart reader: part names as browsers write them', () => {
  it('reads %22, %0D and %0A as the characters a browser escaped, and a backslash as itself', async () => {
    const cases: [string, PartHeader][] = [
      ['form-data; name="directory"; filename="say%22hi%22.html"', { name: 'directory', filename: 'say"hi".html' }],
      ['form-data; name="directory"; filename="a\\b.html"', { name: 'directory', filename: 'a\\b.html' }],
      ['form-data; name="directory"; filename="two%0D%0Alines"', { name: 'directory', filename: 'two\r\nlines' }],
      ['form-data; name="directory"; filename="100%25%2522.html"', { name: 'directory', filename: '100%25%2522.html' }],
      ['Form-Data;NAME=directory ;  FILENAME="a b.html"  ', { name: 'directory', filename: 'a b.html' }],
      ['form-data; name="directory"; filename="x"; filename*=ISO-8859-1\'en\'caf%E9.html', { name: 'directory', filename: 'café.html' }],
      ['form-data; name="configuration"', { name: 'configuration', filename: undefined }],
    ];
    for (const [disposition, expected] of cases) {
      expect([disposition, await dispositionRead(disposition)]).toEqual([disposition, { ...expected, mediaType: undefined }]);
    }
  });

  it('deploys a file a browser named say"hi".html, serves it at /say%22hi%22.html and lists it by that name', async () => {
    const domain = 'quoted-name.example';
    const response = await onePartDeploy(domain, 'content-disposition: form-data; name="directory"; filename="say%22hi%22.html"', 'quoted');
    expect(response.status, await response.clone().text()).toBe(200);
    const served = await site(domain, '/say%22hi%22.html');
    expect([served.status, await served.text()]).toEqual([200, 'quoted']);
    const listing = (await (await authorized(`/v2/sites/${domain}/files/`)).json()) as { path: string }[];
    expect(listing.map((file) => file.path)).toEqual(['/say"hi".html']);
  });

  it('refuses a backslash in a file name instead of dropping it', async () => {
    const response = await onePartDeploy('backslash-name.example', 'content-disposition: form-data; name="directory"; filename="a\\b.html"');
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path', detail: expect.stringContaining('"a\\\\b.html"') });
    expect(await getSite(env.DB, 'backslash-name.example')).toBeNull();
  });

  it('refuses with 400 what no browser sends, and the previous site is served byte for byte as before', async () => {
    const domain = 'strict-names.example';
    const page = noise(3000, 11);
    expect((await deploy(domain, { 'index.html': page, 'a.html': 'kept' })).status).toBe(200);
    const file = 'content-disposition: form-data; name="directory"; filename="a.html"';
    const cases: [string, string][] = [
      ['CR LF inside a file name', 'content-disposition: form-data; name="directory"; filename="a\r\n.html"'],
      ['an unterminated quote', 'content-disposition: form-data; name="directory"; filename="abc.html'],
      ['two Content-Disposition lines', `${file}\r\ncontent-disposition: form-data; name="configuration"`],
      ['a second name', 'content-disposition: form-data; name="directory"; name="configuration"; filename="a.html"'],
      ['a second filename', `${file}; filename="b.html"`],
      ['a quote inside a quoted name', 'content-disposition: form-data; name="directory"; filename="a"b.html"'],
      ['a backslash-escaped quote', 'content-disposition: form-data; name="directory"; filename="a\\"b.html"'],
      ['a folded header line', 'content-disposition: form-data; name="directory";\r\n filename="a.html"'],
      ['a line that is not a header', `${file}\r\nnot a header`],
      ['two Content-Type lines', `${file}\r\ncontent-type: text/html\r\ncontent-type: image/png`],
      ['no Content-Disposition', 'content-type: text/html'],
      ['a disposition other than form-data', 'content-disposition: attachment; name="directory"; filename="a.html"'],
      ['no name', 'content-disposition: form-data; filename="a.html"'],
      ['a filename* that is not UTF-8', `${file}; filename*=UTF-8''%FF.html`],
    ];
    const before = await site(domain, '/');
    const bytes = new Uint8Array(await before.arrayBuffer());
    for (const [what, headerLines] of cases) {
      const response = await onePartDeploy(domain, headerLines, 'replaced');
      expect([what, response.status]).toEqual([what, 400]);
      const problem = await problemOf(response);
      expect(problem).toMatchObject({ type: '/problems/invalid-request', detail: expect.stringMatching(/^The multipart body is malformed: /) });
    }
    const after = await site(domain, '/');
    expect([after.status, after.headers.get('etag')]).toEqual([200, before.headers.get('etag')]);
    expect(new Uint8Array(await after.arrayBuffer())).toEqual(bytes);
    expect(await (await site(domain, '/a.html')).text()).toBe('kept');
  });
});

describe('deploys through the multipart reader', () => {
  it('stores files larger than the read buffer and than a pack part byte for byte, hashes included', async () => {
    const domain = 'large-files.example';
    const files = { 'a.bin': noise(3 * 1024 * 1024, 1), 'b.bin': noise(13 * 1024 * 1024 + 7, 2), 'c.bin': noise(70_000, 3) };
    expect((await deploy(domain, files)).status).toBe(200);
    const site = await getSite(env.DB, domain);
    const index = await readFileIndex(env.FILES, site!.deployment!.indexKey);
    expect(index.files.map((file) => file.path)).toEqual(Object.keys(files));
    for (const entry of index.files) {
      const expected = files[entry.path as keyof typeof files];
      const range = { offset: entry.offset, length: entry.size };
      const object = await env.FILES.get(index.packs[entry.pack]!, { range });
      expect(new Uint8Array(await object!.arrayBuffer())).toEqual(expected);
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', expected));
      expect(entry.hash).toBe(base64url.encode(hash));
    }
  });

  it('enforces each limit while the body streams, with 413 naming it, and leaves no pack behind', async () => {
    const limits = { maxFiles: 2, maxTotalBytes: 1000, maxFileBytes: 600 };
    const receive = (key: string, files: Record<string, Uint8Array>) => {
      const form = new FormData();
      for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], path));
      const request = new Request('http://localhost/', { method: 'PUT', body: form });
      return refusal(receiveDeploy(request, limits, new PackWriter(env.FILES, key), 0));
    };
    const cases: [string, Record<string, Uint8Array>, string, number][] = [
      ['test/limits/file', { 'a.bin': noise(601, 4) }, 'MAX_FILE_BYTES', 600],
      ['test/limits/total', { 'a.bin': noise(600, 5), 'b.bin': noise(401, 6) }, 'MAX_TOTAL_BYTES', 1000],
      ['test/limits/files', { a: noise(1, 7), b: noise(1, 8), c: noise(1, 9) }, 'MAX_FILES', 2],
    ];
    for (const [key, files, limit, value] of cases) {
      const problem = await receive(key, files);
      expect([problem.kind, problem.options.extensions]).toEqual(['payload-too-large', { limit, value }]);
    }
    expect((await env.FILES.list({ prefix: 'test/limits/' })).objects).toEqual([]);
  });
});

describe('packedPart', () => {
  function bytes(length: number, seed: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
    return out;
  }

  async function sha256(content: Uint8Array): Promise<string> {
    return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', content)));
  }

  it('hashes each part whole, whether the pack part buffer still holds it at its end or not', async () => {
    // Parts of 64 bytes, written in chunks of `chunkSize` from one reused buffer, as the multipart reader does.
    const pack = new PackWriter(env.FILES, 'test/packed-part-hashes', 64);
    const cases: [string, number, number][] = [
      ['within the first part buffer', 20, 10],
      ['ending exactly where the buffer ends', 44, 10],
      ['empty', 0, 10],
      ['starting a buffer, spanning several', 150, 10],
      ['within a later buffer', 30, 7],
      ['from the middle to the end of a buffer in one chunk', 12, 12],
      ['starting a buffer with a chunk larger than it', 70, 70],
      ['crossing a boundary', 70, 9],
    ];
    const scratch = new Uint8Array(70);
    let offset = 0;
    for (const [what, size, chunkSize] of cases) {
      const content = bytes(size, size);
      let stored: PackedBytes | undefined;
      const part = packedPart(pack, () => {}, (bytes) => {
        stored = bytes;
      });
      for (let at = 0; at < size; at += chunkSize) {
        const chunk = content.subarray(at, at + chunkSize);
        scratch.set(chunk);
        await part.write(scratch.subarray(0, chunk.byteLength));
        scratch.fill(0);
      }
      await part.end();
      expect([what, stored]).toEqual([what, { offset, size, hash: await sha256(content) }]);
      offset += size;
    }
    await pack.abort();
  });
});
