import fc from 'fast-check';
import { concat, printable } from './bytes';
import { awkwardString, plainPath } from './strings';

/** Keys that reach Object.prototype or shadow its methods when a parser or a merge is careless. */
const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...prototypeKeys) },
  { weight: 2, arbitrary: fc.constantFrom('root', 'fallback', 'headers', 'redirects', 'directories', 'metadata', '200', '404', 'fields', 'uri') },
  { weight: 2, arbitrary: awkwardString },
);

/** Numbers JSON allows but doubles cannot hold, or that parse to -0 or lose precision. */
const numberText = fc.oneof(
  fc.constantFrom('1e400', '-1e400', '1E-400', '-0', '0e0', '123456789012345678901234567890', '9007199254740993', '1.7976931348623157e309', '200', '301'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer().map(String),
);

/** String literals: any text JSON.stringify escapes, lone surrogates and other odd code points as escapes. */
const stringText = fc.oneof(
  fc.oneof(awkwardString, plainPath.map((path) => `/${path}`)).map((text) => JSON.stringify(text)),
  fc.constantFrom('"\\ud800"', '"\\udfff\\ud800"', '"\\u0000"', '"\\u202e"', '"\\ufeff"', '"\\uFFFF"', '"a\\/b"', '"{+path}"', '"{/x*}"', '"{"'),
);

/** JSON text built by hand, so that duplicate keys and `__proto__` members survive into the body. */
const { valueText } = fc.letrec<{ valueText: string }>((tie) => ({
  valueText: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false'),
    numberText,
    stringText,
    fc.array(tie('valueText'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(key, tie('valueText')), { maxLength: 5 }).map((members) => `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`),
  ),
}));

/** A value nested thousands deep: parsers, merges and validators that recurse may overflow their stack. */
const deeplyNested = fc
  .tuple(fc.constantFrom(['[', ']'], ['{"a":', '}'], ['{"__proto__":', '}'], ['{"metadata":', '}']), fc.integer({ min: 100, max: 6000 }))
  .map(([[open, close], depth]) => `${open.repeat(depth)}1${close.repeat(depth)}`);

/** A string of up to a little over the 1 MiB JSON limit. */
const hugeString = fc
  .tuple(fc.constantFrom('root', 'metadata', 'fallback'), fc.integer({ min: 1_000, max: 1_100_000 }), fc.constantFrom('a', '\u00e9', '\\u0000'))
  .map(([name, length, unit]) => `{"${name}":"${unit.repeat(Math.ceil(length / unit.length))}"}`);

/** Shapes of the host options schema with random values, so that some of them are accepted and then served. */
const pathText = fc.oneof(plainPath.map((path) => JSON.stringify(`/${path}`)), fc.constantFrom('""', '"/"', '"/index.html"', '"css"', '".."'), stringText);

/** Usually a value the schema accepts, so that odd but valid options reach the serving code; sometimes an odd one. */
const mostlyValid = <T>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: odd });

/** URI templates (RFC 6570) as the headers and redirects options take them, with odd operators and nesting. */
const uriTemplateText = mostlyValid(
  fc.constantFrom('"/{+path}"', '"/css/{file}"', '"/{a}{b}"', '"/{/segments*}"', '"{?q}"', '"/old{/rest*}"', '"/{x:3}"', '"/{+path}.html"', '"/"'),
  fc.oneof(stringText, fc.constantFrom('"{"', '"}"', '"{}"', '"{{x}}"', '"/{x:0}"', '"/{x:99999}"', '"/{+}"', '"/{#x*,y}"', '"/{x}{x}{x}{x}"', '"/{%ff}"')),
);

const headerFieldsText = mostlyValid(
  fc.tuple(fc.constantFrom('x-fuzz', 'cache-control', 'link', 'content-type', 'content-length', 'set-cookie', 'vary'), fc.constantFrom('"a"', '"no-store"', '"</x>; rel=preload"', '""')),
  fc.tuple(key, stringText),
).map(([name, value]) => `{${JSON.stringify(name)}:${value}}`);

const hostOptionsText = fc
  .record(
    {
      root: mostlyValid(fc.constantFrom('"/"', '""', '"css"', '"/css"'), pathText),
      fallback: mostlyValid(
        fc.constantFrom('"/index.html"', '{"200":"/index.html"}', '{"404":"/data.bin"}', '"/css/a.css"'),
        fc.oneof(pathText, fc.tuple(fc.constantFrom('200', '404', '500', '0', '-1'), pathText).map(([status, file]) => `{"${status}":${file}}`)),
      ),
      directories: fc
        .tuple(mostlyValid(fc.constantFrom('"always"', '"never"'), fc.constantFrom('"sometimes"', 'true')), mostlyValid(fc.constantFrom('true', 'false'), fc.constant('1')))
        .map(([slash, resolve]) => `{"trailingSlash":${slash},"resolve":${resolve}}`),
      headers: fc
        .array(fc.tuple(fc.option(uriTemplateText, { nil: undefined }), headerFieldsText).map(([uri, fields]) => `{${uri === undefined ? '' : `"uri":${uri},`}"fields":${fields}}`), { maxLength: 3 })
        .map((items) => `[${items.join(',')}]`),
      redirects: fc
        .array(
          fc.tuple(uriTemplateText, mostlyValid(fc.constantFrom('"/index.html"', '"/new{/rest*}"', '"https://example.com/{+path}"', '"/{+path}"'), pathText), mostlyValid(fc.constantFrom('301', '302', '307', '308'), numberText))
            .map(([from, to, status]) => `{"from":${from},"to":${to},"status":${status}}`),
          { maxLength: 3 },
        )
        .map((items) => `[${items.join(',')}]`),
      accessControl: mostlyValid(fc.constantFrom('"*"', '"https://example.com"'), stringText).map((origin) => `{"allowOrigin":${origin}}`),
    },
    { requiredKeys: [] },
  )
  .map((options) => `{${Object.entries(options).map(([name, value]) => `"${name}":${value}`).join(',')}}`);

/** A JSON document, or the bytes of one with a few of them damaged (invalid UTF-8 included). */
export const jsonText = fc.oneof(
  { weight: 4, arbitrary: valueText },
  { weight: 3, arbitrary: hostOptionsText },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: hugeString },
);

/** Invalid UTF-8 (a lone continuation byte, an overlong slash, an encoded surrogate) placed into a document. */
export const jsonBody = fc
  .tuple(jsonText, fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom([0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff])) }))
  .map(([text, damage]) => {
    const bytes = new TextEncoder().encode(text);
    if (damage === null) return printable(bytes);
    const [at, invalid] = damage;
    const position = at % (bytes.length + 1);
    return printable(concat(bytes.subarray(0, position), Uint8Array.from(invalid), bytes.subarray(position)));
  });
