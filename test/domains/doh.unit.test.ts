import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResolverUnavailable, maxAnswerBytes, txtData, txtOfAnswer, txtRecords } from '../../src/domains/doh';
import { fuzzParameters } from '../fuzz/settings';

/**
 * TXT lookups against DNS-over-HTTPS JSON answers in the shapes Cloudflare's and Google's
 * resolvers document: `Status`, then `Answer` records whose TXT `data` Cloudflare writes as
 * quoted character-strings and Google as the text itself. The fetch is injected, as in
 * test/certificates/jobs.test.ts; test/node/domain-proof.test.ts asks a real DNS server.
 */
const question = (name: string) => [{ name: `${name}.`, type: 16 }];

function answer(data: string[], extra: object[] = []) {
  const name = '_sitehost-challenge.example.com';
  return {
    Status: 0, TC: false, RD: true, RA: true, AD: false, CD: false,
    Question: question(name),
    Answer: [...extra, ...data.map((text) => ({ name: `${name}.`, type: 16, TTL: 300, data: text }))],
  };
}

/** A TXT record's text in zone-file form, as Cloudflare answers it: quoted strings of at most 255 bytes, `"` and `\` escaped, other bytes outside printable ASCII as `\DDD`. */
function presentation(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const strings: string[] = [];
  for (let at = 0; at === 0 || at < bytes.length; at += 255) {
    const escaped = [...bytes.subarray(at, at + 255)].map((byte) => {
      if (byte === 0x22 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
      return byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
    });
    strings.push(`"${escaped.join('')}"`);
  }
  return strings.join(' ');
}

describe('a DNS-over-HTTPS JSON answer', () => {
  it("reads Cloudflare's quoted records, Google's plain ones, and skips the CNAMEs the resolver followed", () => {
    const cname = { name: '_sitehost-challenge.example.com.', type: 5, TTL: 300, data: 'proofs.example.net.' };
    expect(txtOfAnswer(answer(['"v=spf1 -all"', 'plain text, as Google writes it'], [cname]))).toEqual(['v=spf1 -all', 'plain text, as Google writes it']);
  });

  it('joins a record split into several character-strings, and reads escapes', () => {
    expect(txtOfAnswer(answer(['"abc" "def"', '"say \\"hi\\" \\\\ \\065\\066"']))).toEqual(['abcdef', 'say "hi" \\ AB']);
    expect(txtData('"caf\\195\\169"')).toBe('café');
  });

  it('has no records for a name that does not exist (NXDOMAIN) or has none (NOERROR without Answer)', () => {
    expect(txtOfAnswer({ Status: 3, Question: question('a.example') })).toEqual([]);
    expect(txtOfAnswer({ Status: 0, Question: question('a.example') })).toEqual([]);
  });

  it.each([
    ['SERVFAIL', { Status: 2 }],
    ['REFUSED', { Status: 5 }],
    ['no Status', { Answer: [] }],
    ['an array', []],
    ['null', null],
    ['an Answer that is no list', { Status: 0, Answer: {} }],
    ['a record without data', { Status: 0, Answer: [{ type: 16 }] }],
    ['an unterminated string', answer(['"abc'])],
    ['text between strings', answer(['"abc" def'])],
    ['a lone backslash', answer(['"abc\\'])],
  ])('is refused as unusable: %s', (_what, body) => {
    expect(() => txtOfAnswer(body)).toThrow(ResolverUnavailable);
  });

  it('reads back any text Cloudflare writes, whatever its bytes and length', () => {
    // Code points of every UTF-8 length, built directly: fast-check's own binary strings are seconds slower, and short.
    const codePoint = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff }));
    const text = fc.array(codePoint, { maxLength: 400, size: 'max' }).map((points) => String.fromCodePoint(...points));
    fc.assert(
      fc.property(text, (written) => {
        expect(txtData(presentation(written))).toBe(written);
      }),
      fuzzParameters(300),
    );
  });

  it('answers any data with text or ResolverUnavailable, nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('"', '\\', ' ', '1', '2', '5', 'a', 'é') }), (data) => {
        try {
          expect(typeof txtData(data)).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(ResolverUnavailable);
        }
      }),
      fuzzParameters(500, 1),
    );
  });
});

describe('a TXT lookup', () => {
  it('asks the resolver for the name and type with accept: application/dns-json', async () => {
    const asked: Request[] = [];
    const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
      asked.push(new Request(input, init));
      return Response.json(answer(['"token"']), { headers: { 'content-type': 'application/dns-json' } });
    };
    expect(await txtRecords('https://resolver.example/dns-query?ct=x', '_sitehost-challenge.example.com', fetcher)).toEqual(['token']);
    const [request] = asked;
    expect(request!.method).toBe('GET');
    expect(request!.headers.get('accept')).toBe('application/dns-json');
    const url = new URL(request!.url);
    expect(Object.fromEntries(url.searchParams)).toEqual({ ct: 'x', name: '_sitehost-challenge.example.com', type: 'TXT' });
  });

  it.each([
    ['unreachable', () => Promise.reject(new TypeError('Network connection lost.')), /could not be reached \(Network connection lost.\)/],
    ['an HTTP error', () => Promise.resolve(new Response('busy', { status: 502 })), /answered HTTP 502/],
    ['an answer that is not JSON', () => Promise.resolve(new Response('<html>')), /answered something that is not JSON/],
  ])('is unavailable when the resolver is %s', async (_what, fetcher, reason) => {
    const lookup = txtRecords('https://resolver.example/dns-query', 'a.example', fetcher);
    await expect(lookup).rejects.toThrow(ResolverUnavailable);
    await expect(lookup).rejects.toThrow(reason);
  });

  it('reads at most 64 KiB of an answer, cancelling a larger one as it streams', async () => {
    // 60 MB of one TXT record, made only as it is read: the answer that grew workerd by ~280 MB.
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    const size = 60 * 1024 * 1024;
    let produced = 0;
    let cancelled = false;
    const huge = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced === 0) controller.enqueue(new TextEncoder().encode('{"Status":0,"Answer":[{"type":16,"data":"'));
        if (produced >= size) return controller.close();
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const lookup = txtRecords('https://resolver.example/dns-query', 'a.example', async () => new Response(huge));
    await expect(lookup).rejects.toThrow(ResolverUnavailable);
    await expect(lookup).rejects.toThrow(`answered more than ${maxAnswerBytes} bytes`);
    expect(maxAnswerBytes).toBe(65536);
    expect(cancelled).toBe(true);
    expect(produced).toBeLessThanOrEqual(maxAnswerBytes + 2 * chunk.byteLength);
  });

  it('says that an answer whose body stops arriving timed out, not that it is not JSON', async () => {
    // The head arrives, then the body stalls; the deadline aborts the body as a real fetch does.
    const stalled = async (_input: RequestInfo | URL, init?: RequestInit) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"Status":0,'));
          init?.signal?.addEventListener('abort', () => controller.error(init.signal!.reason));
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/dns-json' } });
    };
    const lookup = txtRecords('https://resolver.example/dns-query', 'a.example', stalled);
    await expect(lookup).rejects.toThrow(ResolverUnavailable);
    await expect(lookup).rejects.toThrow('timed out: no whole answer within 5 seconds');
  });
});
