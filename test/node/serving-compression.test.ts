import { type IncomingHttpHeaders, request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from './support/service';

/**
 * Compression is applied outside the Worker (by `wrangler dev` here, by Cloudflare in
 * production), so only the real service shows what reaches a client: every header must
 * describe the bytes actually sent, for HEAD as for GET, and for ranges.
 */

const domain = 'compressed.example';
const script = 'console.log("a line of a script that compresses well");\n'.repeat(100);
const image = new Uint8Array(2048).map((_, index) => (index * 7919) % 256);

let service: RunningService;

interface SiteResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request to the hosted site as a browser sends it, bytes as they came over the wire (node:http decodes nothing). */
function fromSite(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<SiteResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${service.origin}${path}`,
      { method, headers: { host: `${domain}.localhost:${service.port}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      },
    );
    outgoing.on('error', reject).end();
  });
}

/** Fields of the connection and the moment, which a HEAD need not share with its GET. */
const connectionFields = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function representationFields(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !connectionFields.has(name)));
}

beforeAll(async () => {
  service = await sharedService();
  const form = new FormData();
  form.append('directory', new File(['<h1>Home</h1>'], 'index.html', { type: 'text/html' }));
  form.append('directory', new File([script], 'app.js', { type: 'text/javascript' }));
  form.append('directory', new File([image], 'noise.png', { type: 'image/png' }));
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await token(service, 'github|1')}` },
    body: form,
  });
  expect(response.status).toBe(200);
}, 120_000);

describe('a compressible file, to a client that accepts gzip', () => {
  const gzip = { 'accept-encoding': 'gzip' };

  it('is sent gzipped, without an identity Content-Length, under a weak ETag and Vary: Accept-Encoding', async () => {
    const response = await fromSite('/app.js', gzip);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(response.body).toString()).toBe(script);
    if (response.headers['content-length'] !== undefined) expect(Number(response.headers['content-length'])).toBe(response.body.length);
    expect(response.headers.etag).toMatch(/^W\/"[\w-]{43}"$/);
    expect(response.headers.vary).toBe('Accept-Encoding');
  });

  it('is described by HEAD as GET sends it', async () => {
    const head = await fromSite('/app.js', gzip, 'HEAD');
    const get = await fromSite('/app.js', gzip);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBeUndefined();
    expect(representationFields(head.headers)).toEqual(representationFields(get.headers));
  });

  it('is sent with brotli to a client that prefers it', async () => {
    const response = await fromSite('/app.js', { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    expect(response.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(response.body).toString()).toBe(script);
  });

  it('has a strong ETag of its own when sent as it is, so the two encodings never share one', async () => {
    const identity = await fromSite('/app.js');
    const gzipped = await fromSite('/app.js', gzip);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers['content-length']).toBe(String(script.length));
    expect(identity.body.toString()).toBe(script);
    expect(identity.headers.etag).toMatch(/^"[\w-]{43}"$/);
    expect(identity.headers.vary).toBe('Accept-Encoding');
    expect(gzipped.headers.etag).toBe(`W/${identity.headers.etag}`);
  });

  it('revalidates under either ETag with 304', async () => {
    const gzipped = await fromSite('/app.js', gzip);
    const revalidated = await fromSite('/app.js', { ...gzip, 'if-none-match': gzipped.headers.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(gzipped.headers.etag);
  });

  it('answers GET with Range with the bytes of the file that Content-Range counts', async () => {
    const response = await fromSite('/app.js', { ...gzip, range: 'bytes=0-9' });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes 0-9/${script.length}`);
    expect(response.headers['content-length']).toBe('10');
    expect(response.headers['content-encoding']).not.toBe('gzip');
    expect(response.headers.etag).toMatch(/^"[\w-]{43}"$/);
    expect(response.body.toString()).toBe(script.slice(0, 10));
  });

  it('answers HEAD with Range as a whole GET, ignoring Range (RFC 9110 §14.2: range handling is defined for GET only)', async () => {
    const head = await fromSite('/app.js', { ...gzip, range: 'bytes=0-9' }, 'HEAD');
    const whole = await fromSite('/app.js', gzip);
    expect(head.status).toBe(200);
    expect(head.headers['content-range']).toBeUndefined();
    expect(head.headers['content-encoding']).toBe(whole.headers['content-encoding']);
    expect(head.headers.etag).toBe(whole.headers.etag);
    expect(head.body.toString()).toBe('');
  });

  it('sends the whole file, gzipped, for If-Range with the weak ETag (a range needs a strong one)', async () => {
    const gzipped = await fromSite('/app.js', gzip);
    const response = await fromSite('/app.js', { ...gzip, range: 'bytes=0-9', 'if-range': gzipped.headers.etag! });
    expect(response.status).toBe(200);
    expect(gunzipSync(response.body).toString()).toBe(script);
  });
});

describe('a file of a type that is not compressed', () => {
  it('keeps its Content-Length and strong ETag, for HEAD as for GET', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await fromSite('/noise.png', { 'accept-encoding': 'gzip, br' }, method);
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers['content-length']).toBe(String(image.length));
      expect(response.headers.etag).toMatch(/^"[\w-]{43}"$/);
      expect(response.headers.vary).toBeUndefined();
      if (method === 'GET') expect(new Uint8Array(response.body)).toEqual(image);
    }
  });
});
