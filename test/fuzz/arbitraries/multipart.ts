import fc from 'fast-check';
import { concat, printable } from './bytes';
import { awkwardString, fileName, plainName } from './strings';

/** One body part: its raw header lines and its content. */
export interface Part {
  headers: string[];
  content: string;
}

export interface MultipartCase {
  contentType: string;
  body: Uint8Array;
}

/** A boundary RFC 2046 allows, or one it does not (empty, too long, with quotes, CR LF or spaces). */
export const boundary = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/) },
  { weight: 1, arbitrary: awkwardString },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '--', 'a'.repeat(71), 'a'.repeat(5000)) },
);

/** The Content-Type of the whole request: usually right, sometimes mangled or naming another boundary. */
export const contentType = (actual: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(`multipart/form-data; boundary=${actual}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        `multipart/form-data; boundary="${actual}"`,
        `Multipart/Form-Data; BOUNDARY=${actual}`,
        `multipart/form-data; charset=utf-8; boundary=${actual}`,
        `multipart/form-data; boundary=${actual}; boundary=other`,
        `multipart/form-data; boundary=other; boundary=${actual}`,
        `multipart/form-data;boundary=${actual};`,
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary="',
        `multipart/mixed; boundary=${actual}`,
        `text/plain; boundary=${actual}`,
      ),
    },
    { weight: 1, arbitrary: awkwardString.map((odd) => `multipart/form-data; boundary=${odd}`) },
  );

const quoted = (value: string) => `"${value}"`;

/** RFC 8187's percent-encoding; a lone surrogate, which has no UTF-8 form, stays as it is. */
function extValue(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Content-Disposition lines of a file part: well formed, or the forms parsers disagree on. */
const fileDisposition = fc.tuple(fileName, fc.nat(9)).map(([name, form]) => {
  switch (form) {
    case 0: return [`Content-Disposition: form-data; name="directory"; filename=${name}`];
    case 1: return [`Content-Disposition: form-data; name="directory"; filename="${name}`];
    case 2: return [`Content-Disposition: form-data; name="directory"; filename*=UTF-8''${extValue(name)}`];
    case 3: return [`Content-Disposition: form-data; name="directory"; filename=${quoted(name)}`, `Content-Disposition: form-data; name="directory"; filename="other.html"`];
    case 4: return [`content-disposition: FORM-DATA; NAME=directory; FILENAME=${quoted(name)}`];
    case 5: return [`Content-Disposition: form-data; filename=${quoted(name)}`];
    case 6: return [`Content-Disposition: form-data; name="directory"; filename=${quoted(name)}; filename="second.html"`];
    default: return [`Content-Disposition: form-data; name="directory"; filename=${quoted(name)}`];
  }
});

const filePart: fc.Arbitrary<Part> = fc
  .record({
    disposition: fileDisposition,
    type: fc.option(fc.oneof(fc.constantFrom('text/html', 'application/octet-stream', ''), awkwardString), { nil: undefined }),
    extra: fc.option(fc.constantFrom('Content-Transfer-Encoding: base64', 'Content-Length: 3', 'X-Odd:', ': no name'), { nil: undefined }),
    content: fc.oneof(fc.string({ maxLength: 64 }), fc.constantFrom('', '--', '\r\n--', '\r\n\r\n')),
  })
  .map(({ disposition, type, extra, content }) => ({
    headers: [...disposition, ...(type === undefined ? [] : [`Content-Type: ${type}`]), ...(extra === undefined ? [] : [extra])],
    content,
  }));

const configurationPart: fc.Arbitrary<Part> = fc
  .oneof(fc.constant('{}'), fc.constant('{"fallback":{"200":"/index.html"}}'), fc.json({ maxDepth: 3 }), awkwardString)
  .map((content) => ({ headers: ['Content-Disposition: form-data; name="configuration"'], content }));

const otherPart: fc.Arbitrary<Part> = fc
  .tuple(fc.oneof(plainName, awkwardString), fc.string({ maxLength: 16 }))
  .map(([name, content]) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], content }));

const part = fc.oneof({ weight: 8, arbitrary: filePart }, { weight: 2, arbitrary: configurationPart }, { weight: 1, arbitrary: otherPart });

/** Usually a few parts; sometimes hundreds of tiny ones. */
const parts = fc.oneof(
  { weight: 9, arbitrary: fc.array(part, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 600 }), plainName).map(([count, stem]) => Array.from({ length: count }, (_, i) => ({
    headers: [`Content-Disposition: form-data; name="directory"; filename="${stem}/${i}.txt"`],
    content: String(i),
  }))) },
);

export function serialise(boundary: string, parts: Part[], closed: boolean): Uint8Array {
  const sections = parts.map((p) => `--${boundary}\r\n${p.headers.join('\r\n')}\r\n\r\n${p.content}\r\n`);
  return new TextEncoder().encode(`${sections.join('')}${closed ? `--${boundary}--\r\n` : ''}`);
}

/** A byte-level damage to a body: positions are taken modulo its length, so they shrink well. */
export type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'insert'; at: number; bytes: number[] }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'repeat'; at: number; length: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.oneof(fc.array(fc.nat(255), { minLength: 1, maxLength: 8 }), fc.constantFrom<number[]>([13, 10], [45, 45], [13, 10, 13, 10], [0], [0xff, 0xfe])) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 128 }) }),
);

export function mutate(body: Uint8Array, change: Mutation): Uint8Array {
  if (body.length === 0) return change.kind === 'insert' ? Uint8Array.from(change.bytes) : body;
  const at = change.at % body.length;
  switch (change.kind) {
    case 'flip': {
      const copy = body.slice();
      copy[at]! ^= 1 << change.bit;
      return copy;
    }
    case 'insert': return concat(body.subarray(0, at), Uint8Array.from(change.bytes), body.subarray(at));
    case 'delete': return concat(body.subarray(0, at), body.subarray(at + change.length));
    case 'truncate': return body.subarray(0, at);
    case 'repeat': return concat(body.subarray(0, at + change.length), body.subarray(at));
  }
}

/** A deploy body: random parts under a random boundary, then (usually) a few byte-level mutations. */
export const multipartCase: fc.Arbitrary<MultipartCase> = boundary.chain((actual) =>
  fc
    .record({
      contentType: contentType(actual),
      parts,
      closed: fc.boolean(),
      preamble: fc.option(fc.constantFrom('preamble\r\n', '\r\n', `--${actual}`), { nil: '' }),
      mutations: fc.oneof({ weight: 1, arbitrary: fc.constant<Mutation[]>([]) }, { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }) }),
    })
    .map(({ contentType, parts, closed, preamble, mutations }) => ({
      contentType,
      body: printable(mutations.reduce(mutate, concat(new TextEncoder().encode(preamble), serialise(actual, parts, closed)))),
    })),
);
