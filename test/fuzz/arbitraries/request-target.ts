import fc from 'fast-check';
import { plainName } from './strings';

/** Path segments that path normalisers, decoders and file lookups tend to get wrong. */
const segment = fc.oneof(
  { weight: 3, arbitrary: plainName },
  { weight: 1, arbitrary: fc.constantFrom('index.html', 'css', 'a.css', 'data.bin', '.well-known', 'acme-challenge', '.', '..', '...', '', '~', '%2e', '%2e%2e', '.%2e', '%2E%2E') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '%2F', '%2f', '%5C', '%00', '%0A', '%0D%0A', '%20', '%25', '%252e', '%', '%%', '%G1', '%ff', '%FE%FF', '%C0%AF', '%C0%2E', '%E2%82', '%ED%A0%80',
      '%F4%90%80%80', '%F0%9F%98%80', '%EF%BB%BF', '%E2%80%AE', 'caf%C3%A9', 'cafe%CC%81', '\u00e9', '\u202e', ';', ';a=b', '?', '#', '\\', '..\\..',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '%41', '%2F', '/', '..%2F'), fc.integer({ min: 100, max: 3000 })).map(([unit, count]) => unit.repeat(count)) },
);

const separator = fc.oneof({ weight: 6, arbitrary: fc.constant('/') }, { weight: 1, arbitrary: fc.constantFrom('//', '///', '/./', '/../', '/%2F/') });

const query = fc.option(fc.oneof(fc.constantFrom('', 'a=b', '%ff', '../x'), fc.string({ maxLength: 20 })), { nil: undefined });

/** A path built from random segments. */
const randomPath = fc.tuple(fc.array(fc.tuple(separator, segment), { maxLength: 8 }), fc.boolean()).map(([pairs, trailingSlash]) => {
  const path = pairs.map(([sep, name]) => `${sep}${name}`).join('') || '/';
  return `${path}${trailingSlash ? '/' : ''}`;
});

/** The baseline site's files (test/fuzz/support.ts), as named and in the spellings that may or may not reach them. */
const knownPath = fc.constantFrom(
  '/', '/index.html', '/index', '/css/a.css', '/data.bin', '/css/', '/css', '/%63ss/a.css', '/css%2Fa.css', '/css%2fa.css', '/CSS/A.CSS',
  '/css//a.css', '/./css/a.css', '/css/../data.bin', '/css/%2e%2e/data.bin', '/index.html/', '/data.bin%00', '/data.bin%20', '/%2F', '//',
);

/** A request path with an optional query. */
export const requestPath = fc
  .tuple(fc.oneof({ weight: 3, arbitrary: randomPath }, { weight: 1, arbitrary: knownPath }), query)
  .map(([path, search]) => `${path}${search === undefined ? '' : `?${search}`}`);

/** Hosts: the fuzzed site in odd spellings, sites that do not exist, the API host, and odd names. */
export const host = (siteDomain: string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(`${siteDomain}.localhost`, `${siteDomain.toUpperCase()}.LOCALHOST`, `${siteDomain}.localhost.`, `${siteDomain}.localhost:8787`, siteDomain) },
    { weight: 2, arbitrary: fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'localhost.', 'nobody.example.localhost', '.localhost', 'xn--bcher-kva.example.localhost', 'xn--.localhost', 'xn--zz.localhost', '0x7f.1', '1.2.3.4.localhost', 'a..b.localhost') },
    { weight: 2, arbitrary: fc.array(fc.stringMatching(/^[a-z0-9-]{1,63}$/), { minLength: 1, maxLength: 5 }).map((labels) => `${labels.join('.')}.localhost`) },
    { weight: 1, arbitrary: fc.tuple(fc.stringMatching(/^[a-z]{1,63}$/), fc.integer({ min: 4, max: 10 })).map(([label, count]) => Array(count).fill(label).join('.')) },
  );
