/**
 * Compatibility of schema/host.schema.json (through src/configuration/host-schema.ts and
 * @cfworker/json-schema) with the host schema of @commonshost/configuration, the format the
 * interface was born with (docs/design.md, "Configurations").
 *
 * Every document below goes through both validators. `agreed` documents must get the same
 * verdict from both, and that verdict must be the one written next to the document.
 * `exceptions` are documents that the package accepts although they cannot work; our schema
 * refuses them, and the test checks both halves of that statement.
 */
// @ts-expect-error -- the package (CommonJS) ships no type declarations.
import { validate as validateServerConfiguration } from '@commonshost/configuration';
import { describe, expect, it } from 'vitest';
import { validateHostConfiguration } from '../../src/configuration/host-schema';

/** Returns true, or throws the first violation. */
const commonshostValidate = validateServerConfiguration as (configuration: unknown) => true;

/** The package validates a whole server configuration; a host is an element of `hosts`. */
function packageAccepts(host: unknown): boolean {
  try {
    return commonshostValidate({ hosts: [host] }) === true;
  } catch {
    return false;
  }
}

function oursAccepts(host: unknown): boolean {
  return validateHostConfiguration(host).length === 0;
}

interface Case {
  name: string;
  host: unknown;
}

const label63 = 'a'.repeat(63);
const domain253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
const domain254 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`;

const valid: Case[] = [
  // whole documents
  { name: 'empty object', host: {} },
  {
    name: 'every option at once',
    host: {
      domain: 'www.example.com',
      root: 'public',
      fallback: { 200: '/index.html', 404: '/404.html', extensions: ['', 'html'] },
      directories: { resolve: true, trailingSlash: 'always' },
      accessControl: { allowOrigin: '*' },
      headers: [{ uri: '/assets/{file}', fields: { 'Cache-Control': 'public, max-age=31536000, immutable' } }],
      redirects: [{ from: '/old/{path}', to: '/new/{path}', status: 301 }],
      manifest: [{ get: '/index.html', push: ['/app.js', '/app.css'] }],
    },
  },
  // domain
  { name: 'domain: two labels', host: { domain: 'example.com' } },
  { name: 'domain: several labels', host: { domain: 'www.sub.example.co.uk' } },
  { name: 'domain: single label', host: { domain: 'localhost' } },
  { name: 'domain: digits and inner hyphens', host: { domain: 'a-1.b--c.x9' } },
  { name: 'domain: punycode label', host: { domain: 'xn--mnchen-3ya.de' } },
  { name: 'domain: Unicode label', host: { domain: 'münchen.de' } },
  { name: 'domain: Cyrillic labels', host: { domain: 'пример.рф' } },
  { name: 'domain: 63-character label', host: { domain: `${label63}.com` } },
  { name: 'domain: 253 characters', host: { domain: domain253 } },
  { name: 'domain: IPv4 address', host: { domain: '192.0.2.1' } },
  { name: 'domain: IPv6 loopback', host: { domain: '::1' } },
  { name: 'domain: IPv6 with upper-case hex', host: { domain: '2001:DB8::1' } },
  { name: 'domain: IPv4-mapped IPv6', host: { domain: '::ffff:192.0.2.1' } },
  // root
  { name: 'root: empty', host: { root: '' } },
  { name: 'root: 1024 characters', host: { root: 'a'.repeat(1024) } },
  { name: 'root: Unicode and spaces', host: { root: 'sites/café du monde' } },
  { name: 'root: relative path', host: { root: 'dist/site' } },
  { name: 'root: absolute path', host: { root: '/srv/www' } },
  // fallback
  { name: 'fallback: string', host: { fallback: '/index.html' } },
  { name: 'fallback: empty string', host: { fallback: '' } },
  { name: 'fallback: empty object', host: { fallback: {} } },
  { name: 'fallback: 200', host: { fallback: { 200: '/index.html' } } },
  { name: 'fallback: 4xx and 5xx', host: { fallback: { 404: '/404.html', 410: '/gone.html', 503: '/busy.html' } } },
  { name: 'fallback: boundary status codes', host: { fallback: { 200: 'a', 299: 'b', 400: 'c', 499: 'd', 500: 'e', 599: 'f' } } },
  { name: 'fallback: empty extensions', host: { fallback: { extensions: [] } } },
  { name: 'fallback: extensions', host: { fallback: { extensions: ['', 'html', 'htm'] } } },
  { name: 'fallback: extensions and status', host: { fallback: { extensions: ['html'], 404: '404.html' } } },
  // directories
  { name: 'directories: empty', host: { directories: {} } },
  { name: 'directories: resolve false', host: { directories: { resolve: false } } },
  { name: 'directories: trailingSlash never', host: { directories: { trailingSlash: 'never' } } },
  { name: 'directories: both', host: { directories: { resolve: true, trailingSlash: 'always' } } },
  // accessControl
  { name: 'accessControl: empty', host: { accessControl: {} } },
  { name: 'accessControl: *', host: { accessControl: { allowOrigin: '*' } } },
  { name: 'accessControl: https origin', host: { accessControl: { allowOrigin: 'https://example.com' } } },
  { name: 'accessControl: origin with port', host: { accessControl: { allowOrigin: 'http://localhost:8080' } } },
  { name: 'accessControl: IPv6 origin', host: { accessControl: { allowOrigin: 'http://[::1]:8787' } } },
  // headers
  { name: 'headers: empty', host: { headers: [] } },
  { name: 'headers: empty fields', host: { headers: [{ fields: {} }] } },
  { name: 'headers: without uri', host: { headers: [{ fields: { 'Cache-Control': 'no-cache' } }] } },
  { name: 'headers: with uri', host: { headers: [{ uri: '/assets/{file}', fields: { 'Cache-Control': 'immutable' } }] } },
  {
    name: 'headers: array value and reserved expansion',
    host: { headers: [{ uri: '/{+path}.html', fields: { Link: ['</a.css>; rel=preload', '</b.js>; rel=preload'] } }] },
  },
  { name: 'headers: empty value', host: { headers: [{ fields: { 'X-Empty': '' } }] } },
  { name: 'headers: empty value list', host: { headers: [{ fields: { 'X-List': [] } }] } },
  { name: 'headers: quotes in value', host: { headers: [{ fields: { 'Content-Security-Policy': "default-src 'self'" } }] } },
  { name: 'headers: tab in value', host: { headers: [{ fields: { 'X-Tab': 'a\tb' } }] } },
  { name: 'headers: empty uri', host: { headers: [{ uri: '', fields: { 'X-A': 'b' } }] } },
  { name: 'headers: names that only contain a refused name', host: { headers: [{ fields: { 'Connection-Id': 'x', 'X-TE': 'y', Hosts: 'z' } }] } },
  { name: 'headers: several entries', host: { headers: [{ fields: { A: '1' } }, { uri: '/b', fields: { B: '2' } }] } },
  // redirects
  { name: 'redirects: empty', host: { redirects: [] } },
  { name: 'redirects: without status', host: { redirects: [{ from: '/old', to: '/new' }] } },
  { name: 'redirects: 301 to absolute URI', host: { redirects: [{ from: '/blog/{slug}', to: 'https://blog.example.com/{slug}', status: 301 }] } },
  { name: 'redirects: 302', host: { redirects: [{ from: '/a', to: '/b', status: 302 }] } },
  { name: 'redirects: 303', host: { redirects: [{ from: '/a', to: '/b', status: 303 }] } },
  { name: 'redirects: 307', host: { redirects: [{ from: '/a', to: '/b', status: 307 }] } },
  { name: 'redirects: 308', host: { redirects: [{ from: '/a', to: '/b', status: 308 }] } },
  { name: 'redirects: explode and query', host: { redirects: [{ from: '/docs{/path*}', to: '/v2/docs{/path*}{?query*}' }] } },
  { name: 'redirects: several', host: { redirects: [{ from: '/{year}/{month}/{slug}', to: '/posts/{slug}' }, { from: '/x', to: '/y#top' }] } },
  { name: 'redirects: query expression and prefix', host: { redirects: [{ from: '/{name:3}', to: '/find{?q,lang}' }] } },
  { name: 'redirects: percent-encoded and Unicode literals', host: { redirects: [{ from: '/%7Euser', to: '/über/~user' }] } },
  // manifest
  { name: 'manifest: empty', host: { manifest: [] } },
  { name: 'manifest: file path', host: { manifest: 'push-manifest.json' } },
  { name: 'manifest: get and push strings', host: { manifest: [{ get: '/index.html', push: '/app.js' }] } },
  { name: 'manifest: push array', host: { manifest: [{ get: '/index.html', push: ['/app.js', '/app.css'] }] } },
  { name: 'manifest: glob rule with push object', host: { manifest: [{ glob: '**/*.html', push: { glob: '/assets/**/*.{js,css}', priority: 256 } }] } },
  { name: 'manifest: uri list with priority 1', host: { manifest: [{ uri: ['/a', '/b'], push: { uri: '/c', priority: 1 } }] } },
  { name: 'manifest: nested uri list in push', host: { manifest: [{ get: { glob: '/**/*.html' }, push: [['/x', '/y'], '/z'] }] } },
  { name: 'manifest: get array and negated glob', host: { manifest: [{ get: [{ uri: '/a' }, '/b'], push: '!/c/**' }] } },
  { name: 'manifest: uri and glob together', host: { manifest: [{ glob: ['/a/**', '/b/**'], uri: '/c', push: '/d' }] } },
  { name: 'manifest: extra property in push object', host: { manifest: [{ get: '/a', push: { uri: '/b', note: 'kept' } }] } },
];

const invalid: Case[] = [
  // not an object
  { name: 'null', host: null },
  { name: 'array', host: [] },
  { name: 'string', host: 'example.com' },
  { name: 'number', host: 42 },
  { name: 'unknown property', host: { domains: ['example.com'] } },
  { name: 'property names are case-sensitive', host: { Domain: 'example.com' } },
  // domain
  { name: 'domain: number', host: { domain: 5 } },
  { name: 'domain: null', host: { domain: null } },
  { name: 'domain: array', host: { domain: ['example.com'] } },
  { name: 'domain: empty', host: { domain: '' } },
  { name: 'domain: empty label', host: { domain: 'example..com' } },
  { name: 'domain: trailing dot', host: { domain: 'example.com.' } },
  { name: 'domain: leading dot', host: { domain: '.example.com' } },
  { name: 'domain: all upper case', host: { domain: 'EXAMPLE.COM' } },
  { name: 'domain: 64-character label', host: { domain: `${'a'.repeat(64)}.com` } },
  { name: 'domain: 254 characters', host: { domain: domain254 } },
  { name: 'domain: wildcard', host: { domain: '*.example.com' } },
  // root
  { name: 'root: number', host: { root: 5 } },
  { name: 'root: null', host: { root: null } },
  { name: 'root: array', host: { root: ['public'] } },
  // fallback
  { name: 'fallback: number', host: { fallback: 404 } },
  { name: 'fallback: null', host: { fallback: null } },
  { name: 'fallback: boolean', host: { fallback: true } },
  { name: 'fallback: array', host: { fallback: ['/index.html'] } },
  { name: 'fallback: status value not a string', host: { fallback: { 200: 5 } } },
  { name: 'fallback: status value null', host: { fallback: { 404: null } } },
  { name: 'fallback: extensions not an array', host: { fallback: { extensions: 'html' } } },
  { name: 'fallback: extension not a string', host: { fallback: { extensions: [1] } } },
  { name: 'fallback: unknown key', host: { fallback: { file: '/index.html' } } },
  { name: 'fallback: 1xx status', host: { fallback: { 100: 'a' } } },
  { name: 'fallback: 3xx status', host: { fallback: { 301: 'a' } } },
  { name: 'fallback: 600', host: { fallback: { 600: 'a' } } },
  { name: 'fallback: two digits', host: { fallback: { 20: 'a' } } },
  // directories
  { name: 'directories: boolean', host: { directories: true } },
  { name: 'directories: array', host: { directories: [] } },
  { name: 'directories: resolve not boolean', host: { directories: { resolve: 'yes' } } },
  { name: 'directories: unknown trailingSlash', host: { directories: { trailingSlash: 'sometimes' } } },
  { name: 'directories: trailingSlash letter case', host: { directories: { trailingSlash: 'Always' } } },
  { name: 'directories: unknown property', host: { directories: { index: 'index.html' } } },
  // accessControl
  { name: 'accessControl: string', host: { accessControl: '*' } },
  { name: 'accessControl: origin without scheme', host: { accessControl: { allowOrigin: 'example.com' } } },
  { name: 'accessControl: empty origin', host: { accessControl: { allowOrigin: '' } } },
  { name: 'accessControl: origin list', host: { accessControl: { allowOrigin: ['*'] } } },
  { name: 'accessControl: space in URI', host: { accessControl: { allowOrigin: 'https://exa mple.com' } } },
  { name: 'accessControl: null origin', host: { accessControl: { allowOrigin: 'null' } } },
  { name: 'accessControl: unknown property', host: { accessControl: { allowCredentials: true } } },
  // headers
  { name: 'headers: object', host: { headers: { 'Cache-Control': 'no-cache' } } },
  { name: 'headers: entry without fields', host: { headers: [{}] } },
  { name: 'headers: uri without fields', host: { headers: [{ uri: '/a' }] } },
  { name: 'headers: entry is a string', host: { headers: ['Cache-Control: no-cache'] } },
  { name: 'headers: unknown entry property', host: { headers: [{ fields: {}, status: 200 }] } },
  { name: 'headers: uri not a string', host: { headers: [{ uri: 5, fields: {} }] } },
  { name: 'headers: name with space', host: { headers: [{ fields: { 'Bad Name': 'x' } }] } },
  { name: 'headers: name with underscore', host: { headers: [{ fields: { X_Custom: 'x' } }] } },
  { name: 'headers: empty name', host: { headers: [{ fields: { '': 'x' } }] } },
  { name: 'headers: numeric value', host: { headers: [{ fields: { 'X-Num': 5 } }] } },
  { name: 'headers: numeric value in list', host: { headers: [{ fields: { 'X-Num': [5] } }] } },
  { name: 'headers: object value', host: { headers: [{ fields: { 'X-Obj': { a: 'b' } } }] } },
  { name: 'headers: connection', host: { headers: [{ fields: { connection: 'close' } }] } },
  { name: 'headers: keep-alive', host: { headers: [{ fields: { 'keep-alive': 'timeout=5' } }] } },
  { name: 'headers: proxy-connection', host: { headers: [{ fields: { 'proxy-connection': 'keep-alive' } }] } },
  { name: 'headers: transfer-encoding', host: { headers: [{ fields: { 'transfer-encoding': 'chunked' } }] } },
  { name: 'headers: upgrade', host: { headers: [{ fields: { upgrade: 'h2c' } }] } },
  { name: 'headers: host', host: { headers: [{ fields: { host: 'example.com' } }] } },
  { name: 'headers: http2-settings', host: { headers: [{ fields: { 'http2-settings': 'AAMAAABkAAQAAP__' } }] } },
  // redirects
  { name: 'redirects: object', host: { redirects: { '/a': '/b' } } },
  { name: 'redirects: entry is a string', host: { redirects: ['/a -> /b'] } },
  { name: 'redirects: without to', host: { redirects: [{ from: '/a' }] } },
  { name: 'redirects: without from', host: { redirects: [{ to: '/a' }] } },
  { name: 'redirects: from not a string', host: { redirects: [{ from: 5, to: '/b' }] } },
  { name: 'redirects: unknown property', host: { redirects: [{ from: '/a', to: '/b', code: 301 }] } },
  { name: 'redirects: status 200', host: { redirects: [{ from: '/a', to: '/b', status: 200 }] } },
  { name: 'redirects: status 299', host: { redirects: [{ from: '/a', to: '/b', status: 299 }] } },
  { name: 'redirects: status 400', host: { redirects: [{ from: '/a', to: '/b', status: 400 }] } },
  { name: 'redirects: status as string', host: { redirects: [{ from: '/a', to: '/b', status: '301' }] } },
  { name: 'redirects: fractional status', host: { redirects: [{ from: '/a', to: '/b', status: 301.5 }] } },
  // manifest
  { name: 'manifest: number', host: { manifest: 5 } },
  { name: 'manifest: object', host: { manifest: {} } },
  { name: 'manifest: empty rule', host: { manifest: [{}] } },
  { name: 'manifest: rule without push', host: { manifest: [{ get: '/a' }] } },
  { name: 'manifest: push without get, uri or glob', host: { manifest: [{ push: '/a' }] } },
  { name: 'manifest: get together with uri', host: { manifest: [{ get: '/a', uri: '/b', push: '/c' }] } },
  { name: 'manifest: empty push list', host: { manifest: [{ get: '/a', push: [] }] } },
  { name: 'manifest: duplicate push entries', host: { manifest: [{ get: '/a', push: ['/b', '/b'] }] } },
  { name: 'manifest: push object without uri or glob', host: { manifest: [{ get: '/a', push: { priority: 5 } }] } },
  { name: 'manifest: priority 0', host: { manifest: [{ get: '/a', push: { uri: '/b', priority: 0 } }] } },
  { name: 'manifest: priority 257', host: { manifest: [{ get: '/a', push: { uri: '/b', priority: 257 } }] } },
  { name: 'manifest: fractional priority', host: { manifest: [{ get: '/a', push: { uri: '/b', priority: 1.5 } }] } },
  { name: 'manifest: unknown rule property', host: { manifest: [{ get: '/a', push: '/b', method: 'GET' }] } },
  { name: 'manifest: glob not starting with / or **', host: { manifest: [{ glob: 'assets/*', push: '/b' }] } },
  { name: 'manifest: empty glob list', host: { manifest: [{ glob: [], push: '/b' }] } },
  { name: 'manifest: empty uri list', host: { manifest: [{ uri: [], push: '/b' }] } },
  { name: 'manifest: push number', host: { manifest: [{ get: '/a', push: 5 }] } },
  { name: 'manifest: get number', host: { manifest: [{ get: 5, push: '/a' }] } },
  { name: 'manifest: glob with trailing backslash', host: { manifest: [{ glob: '/a\\', push: '/b' }] } },
  { name: 'manifest: glob with :]', host: { manifest: [{ glob: '/a:]', push: '/b' }] } },
  { name: 'manifest: glob with newline', host: { manifest: [{ glob: '/a\nb', push: '/b' }] } },
];

interface Exception extends Case {
  reason: string;
}

/** Accepted by @commonshost/configuration, refused by our schema. */
const exceptions: Exception[] = [
  // domain
  {
    name: 'domain: upper-case letters',
    host: { domain: 'Example.com' },
    reason: 'the package only asks each label to contain one allowed code point, so "Example" passes while "EXAMPLE" fails; we require the lower-case (canonical) form throughout',
  },
  { name: 'domain: space', host: { domain: 'a b.com' }, reason: 'a space cannot be part of a domain name (the package tests labels with an unanchored pattern)' },
  { name: 'domain: underscore', host: { domain: '_dmarc.example.com' }, reason: 'an underscore is not allowed in a host name' },
  { name: 'domain: punctuation', host: { domain: 'exa!mple.com' }, reason: '"!" is not allowed in a host name' },
  { name: 'domain: leading hyphen', host: { domain: '-example.com' }, reason: 'a label cannot start with a hyphen (RFC 952/1123, IDNA2008)' },
  { name: 'domain: trailing hyphen', host: { domain: 'example-.com' }, reason: 'a label cannot end with a hyphen' },
  { name: 'domain: colons that are no IPv6 address', host: { domain: '::1::2' }, reason: 'not an IPv6 address; the package accepts it as a host name because it contains a digit' },
  { name: 'domain: IPv6 with white space', host: { domain: ' ::1' }, reason: "Ajv's ipv6 format tolerates surrounding white space; a domain value cannot have it" },
  { name: 'domain: IPv6 zone index', host: { domain: 'fe80::1%eth0' }, reason: 'a zone index is local to one machine and cannot appear in a Host header' },
  {
    name: 'domain: code point outside the BMP',
    host: { domain: '\u{20000}.com' },
    reason: 'approximation: label lengths are counted in UTF-16 units by the package, which a pattern cannot do for astral code points, so those are refused',
  },
  // paths: root, fallback files, the manifest file
  { name: 'root: NUL characters', host: { root: '\u0000\u0000' }, reason: 'no file name holds a control character, so such a root names nothing; refused like an uploaded file name' },
  { name: 'root: over 1024 characters', host: { root: 'a'.repeat(1025) }, reason: 'longer than any file path (1024 bytes); unbounded, it was a way to store a megabyte of junk per site' },
  { name: 'fallback: newline in the file', host: { fallback: '/index\n.html' }, reason: 'no file name holds a control character' },
  { name: 'fallback: control character in a status file', host: { fallback: { 404: '/404\u007F.html' } }, reason: 'no file name holds a control character (DEL included)' },
  { name: 'fallback: status file over 1024 characters', host: { fallback: { 404: `/${'a'.repeat(1024)}` } }, reason: 'longer than any file path' },
  { name: 'manifest: C1 control in the file path', host: { manifest: 'push\u0085manifest.json' }, reason: 'no file name holds a control character (C1 included)' },
  // fallback
  { name: 'fallback: letters around a status', host: { fallback: { x404: '/404.html' } }, reason: 'the package\'s status-key pattern "[245]\\d\\d" is unanchored; "x404" is no status code' },
  { name: 'fallback: four digits', host: { fallback: { 2000: '/a.html' } }, reason: '"2000" is no status code (unanchored pattern)' },
  { name: 'fallback: status with a space', host: { fallback: { '404 ': '/404.html' } }, reason: '"404 " is no status code (unanchored pattern)' },
  // headers: hop-by-hop and connection-level fields, compared case-insensitively
  { name: 'headers: Connection', host: { headers: [{ fields: { Connection: 'close' } }] }, reason: 'field names are case-insensitive; the package refuses only the lower-case spelling of Connection' },
  { name: 'headers: Keep-Alive', host: { headers: [{ fields: { 'Keep-Alive': 'timeout=5' } }] }, reason: 'hop-by-hop field, refused by the package only in lower case' },
  { name: 'headers: Transfer-Encoding', host: { headers: [{ fields: { 'Transfer-Encoding': 'chunked' } }] }, reason: 'hop-by-hop field, refused by the package only in lower case; framing is the server\'s' },
  { name: 'headers: Upgrade', host: { headers: [{ fields: { Upgrade: 'h2c' } }] }, reason: 'hop-by-hop field, refused by the package only in lower case' },
  { name: 'headers: Host', host: { headers: [{ fields: { HOST: 'example.com' } }] }, reason: 'request field, refused by the package only in lower case' },
  { name: 'headers: te', host: { headers: [{ fields: { te: 'trailers' } }] }, reason: 'TE is connection-specific (RFC 9110 7.6.1) and not allowed in HTTP/2 responses (RFC 9113 8.2.2); the package forgets it' },
  { name: 'headers: Trailer', host: { headers: [{ fields: { Trailer: 'Expires' } }] }, reason: 'hop-by-hop in RFC 2616 13.5.1; announces trailer fields that a static host never sends' },
  { name: 'headers: Proxy-Authenticate', host: { headers: [{ fields: { 'Proxy-Authenticate': 'Basic' } }] }, reason: 'hop-by-hop (RFC 2616 13.5.1), only meaningful from a proxy' },
  { name: 'headers: Proxy-Authorization', host: { headers: [{ fields: { 'proxy-authorization': 'Basic eA==' } }] }, reason: 'hop-by-hop request field (RFC 2616 13.5.1)' },
  // headers: values
  { name: 'headers: CRLF in value', host: { headers: [{ fields: { 'X-A': 'a\r\nSet-Cookie: session=stolen' } }] }, reason: 'CR/LF in a field value is response splitting; field values cannot contain them (RFC 9110 5.5)' },
  { name: 'headers: NUL in value', host: { headers: [{ fields: { 'X-A': 'a\u0000b' } }] }, reason: 'NUL is not allowed in a field value (RFC 9110 5.5)' },
  { name: 'headers: newline in value list', host: { headers: [{ fields: { 'X-A': ['ok', 'bad\n'] } }] }, reason: 'LF is not allowed in a field value' },
  { name: 'headers: Latin-1 in value', host: { headers: [{ fields: { 'X-Latin': 'café' } }] }, reason: 'the runtime sends it as raw UTF-8, which clients read as Latin-1 or refuse; _headers refuses it too (src/rules/header-fields.ts)' },
  { name: 'headers: character above U+00FF', host: { headers: [{ fields: { 'X-Price': '5 €' } }] }, reason: 'field values are byte strings; Headers.set() throws a TypeError for characters above U+00FF' },
  // URI templates
  { name: 'headers: unclosed expression in uri', host: { headers: [{ uri: '/{file', fields: {} }] }, reason: 'not an RFC 6570 URI template; the package\'s uri-template format check never fails' },
  { name: 'headers: space in uri', host: { headers: [{ uri: '/a b', fields: {} }] }, reason: 'a space is not allowed in a URI template (RFC 6570 2.1); it must be %20' },
  { name: 'redirects: empty from', host: { redirects: [{ from: '', to: '/b' }] }, reason: 'an empty template matches no request path' },
  { name: 'redirects: empty to', host: { redirects: [{ from: '/a', to: '' }] }, reason: 'an empty Location resolves to the request URL itself: a redirect loop' },
  { name: 'redirects: CRLF in to', host: { redirects: [{ from: '/a', to: '/b\r\nSet-Cookie: x=y' }] }, reason: 'control characters in the Location target are response splitting, and no URI template' },
  { name: 'redirects: javascript: target', host: { redirects: [{ from: '/a', to: 'javascript:alert(1)' }] }, reason: 'a redirect that runs script in the site\'s origin is an attack, never a redirect; so are data: and vbscript: targets' },
  { name: 'redirects: data: target in upper case', host: { redirects: [{ from: '/a', to: 'DATA:text/html,<script>alert(1)</script>' }] }, reason: 'URL schemes are case-insensitive' },
  { name: 'redirects: stray closing brace', host: { redirects: [{ from: '/a}', to: '/b' }] }, reason: '"}" is not allowed as a literal in a URI template' },
  { name: 'redirects: empty expression', host: { redirects: [{ from: '/{}', to: '/b' }] }, reason: 'an expression needs a variable name (RFC 6570 2.2)' },
  { name: 'redirects: hyphen in variable name', host: { redirects: [{ from: '/{a-b}', to: '/b' }] }, reason: 'variable names are letters, digits, "_", "." and percent-encoded octets (RFC 6570 2.3)' },
  { name: 'redirects: reserved operator', host: { redirects: [{ from: '/{=a}', to: '/b' }] }, reason: 'the operators "=", ",", "!", "@" and "|" are reserved (RFC 6570 2.2)' },
  { name: 'redirects: prefix length 0', host: { redirects: [{ from: '/{a:0}', to: '/b' }] }, reason: 'a prefix length is 1 to 9999 (RFC 6570 2.4.1)' },
  // redirects: statuses that do not redirect
  { name: 'redirects: status 300', host: { redirects: [{ from: '/a', to: '/b', status: 300 }] }, reason: 'not a redirect status in Fetch: browsers do not follow it, and Response.redirect() throws a RangeError' },
  { name: 'redirects: status 304', host: { redirects: [{ from: '/a', to: '/b', status: 304 }] }, reason: '304 Not Modified is no redirect and cannot carry a body' },
  { name: 'redirects: status 305', host: { redirects: [{ from: '/a', to: '/b', status: 305 }] }, reason: '305 Use Proxy is deprecated (RFC 9110 15.4.6) and not followed by browsers' },
  { name: 'redirects: status 306', host: { redirects: [{ from: '/a', to: '/b', status: 306 }] }, reason: '306 is unused (RFC 9110 15.4.7)' },
  { name: 'redirects: status 399', host: { redirects: [{ from: '/a', to: '/b', status: 399 }] }, reason: '399 is no defined status code' },
  // manifest
  { name: 'manifest: get neither URI template nor glob', host: { manifest: [{ get: 'index page', push: '/a' }] }, reason: 'not a URI template (space) and not a glob (does not start with "/" or "**"); only the no-op uri-template check lets it through' },
  { name: 'manifest: glob with backslash escape', host: { manifest: [{ glob: '/a\\*', push: '/b' }] }, reason: 'approximation of the extglob syntax check: backslashes are refused' },
  { name: 'manifest: glob with POSIX class', host: { manifest: [{ glob: '/[[:alpha:]]', push: '/b' }] }, reason: 'approximation of the extglob syntax check: ":]" is refused' },
  { name: 'manifest: glob with space', host: { manifest: [{ glob: '/a b', push: '/c' }] }, reason: 'approximation of the extglob syntax check: white space is refused' },
  {
    name: 'manifest: lone surrogate in a property name',
    host: { manifest: [{ get: '/a', push: { uri: '/b', '\ud800': 1 } }] },
    reason: 'not valid Unicode: it has no UTF-8 form and no JSON Pointer for error reports',
  },
];

describe('host schema agrees with @commonshost/configuration', () => {
  it('covers enough documents', () => {
    expect(valid.length).toBeGreaterThanOrEqual(40);
    expect(invalid.length).toBeGreaterThanOrEqual(40);
    expect(valid.length + invalid.length + exceptions.length).toBeGreaterThanOrEqual(100);
    const names = [...valid, ...invalid, ...exceptions].map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(valid)('accepts $name', ({ host }) => {
    expect({ package: packageAccepts(host), ours: validateHostConfiguration(host) }).toEqual({ package: true, ours: [] });
  });

  it.each(invalid)('refuses $name', ({ host }) => {
    const errors = validateHostConfiguration(host);
    expect({ package: packageAccepts(host), ours: errors.length > 0 }).toEqual({ package: false, ours: true });
    for (const error of errors) {
      expect(error.pointer).toMatch(/^(?:\/[^/]*)*$/);
      expect(error.message).not.toBe('');
    }
  });

  it.each(exceptions)('refuses $name, which the package accepts', ({ host }) => {
    expect({ package: packageAccepts(host), ours: oursAccepts(host) }).toEqual({ package: true, ours: false });
  });

  it('agrees on every one-character domain in the Basic Multilingual Plane, except "-"', () => {
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const domain = String.fromCharCode(code);
      const host = { domain };
      if (packageAccepts(host) !== oursAccepts(host)) disagreements.push(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
    }
    // "-" alone is a label made of a hyphen, which the package accepts.
    expect(disagreements).toEqual(['U+002D']);
  });
});

describe('validateHostConfiguration reports', () => {
  const cases: { host: unknown; errors: { pointer: string; message: string | RegExp }[] }[] = [
    { host: { fallback: { 200: 5 } }, errors: [{ pointer: '/fallback/200', message: 'must be a string (got an integer)' }] },
    { host: { fallback: 5 }, errors: [{ pointer: '/fallback', message: 'must be a string or an object (got an integer)' }] },
    { host: { fallback: { x: 'a' } }, errors: [{ pointer: '/fallback/x', message: /^unknown property "x"; expected one of "extensions" or a name matching/ }] },
    { host: [], errors: [{ pointer: '', message: 'must be an object (got an array)' }] },
    { host: { color: 'red' }, errors: [{ pointer: '/color', message: /^unknown property "color"; expected one of "domain", "root"/ }] },
    { host: { domain: 'a b' }, errors: [{ pointer: '/domain', message: 'must be a lower-case domain name, an IPv4 address or an IPv6 address' }] },
    { host: { directories: { trailingSlash: 'x' } }, errors: [{ pointer: '/directories/trailingSlash', message: 'must be one of "always", "never"' }] },
    { host: { redirects: [{ from: '/a' }] }, errors: [{ pointer: '/redirects/0', message: 'missing the property "to"' }] },
    { host: { redirects: [{ from: '/a', to: '/b', status: 304 }] }, errors: [{ pointer: '/redirects/0/status', message: 'must be one of 301, 302, 303, 307, 308' }] },
    { host: { redirects: [{ from: '/a', to: '' }] }, errors: [{ pointer: '/redirects/0/to', message: 'must be a non-empty string' }] },
    {
      host: { headers: [{ fields: { Connection: 'close' } }] },
      errors: [{ pointer: '/headers/0/fields/Connection', message: /^is not allowed: header fields the server alone sets/ }],
    },
    {
      host: { headers: [{ fields: { 'a/b~c': 'x' } }] },
      errors: [{ pointer: '/headers/0/fields/a~1b~0c', message: /^unknown property "a\/b~c"/ }],
    },
    {
      host: { headers: [{ fields: { 'X-A': 'a\nb' } }] },
      errors: [{ pointer: '/headers/0/fields/X-A', message: /^must be a header field value of visible ASCII or an array/ }],
    },
    {
      host: { headers: [{ uri: '/{x', fields: {} }, {}] },
      errors: [
        { pointer: '/headers/0/uri', message: 'must be an RFC 6570 URI template' },
        { pointer: '/headers/1', message: 'missing the property "fields"' },
      ],
    },
    { host: { manifest: [{ push: '/a' }] }, errors: [{ pointer: '/manifest/0', message: 'must have the property "get", "uri" or "glob"' }] },
    { host: { manifest: [{ get: '/a', uri: '/b', push: '/c' }] }, errors: [{ pointer: '/manifest/0', message: /matches more than one alternative/ }] },
    { host: { manifest: [{ get: '/a', push: 5 }] }, errors: [{ pointer: '/manifest/0/push', message: /^must be .* \(got an integer\)$/ }] },
    { host: { root: 'a\u0000' }, errors: [{ pointer: '/root', message: 'must be a path without control characters' }] },
    { host: { root: 'a'.repeat(1025) }, errors: [{ pointer: '/root', message: 'must be at most 1024 characters long' }] },
    { host: { fallback: { 404: '\u0007' } }, errors: [{ pointer: '/fallback/404', message: 'must be a path without control characters' }] },
    { host: { manifest: 'm\u0000.json' }, errors: [{ pointer: '/manifest', message: 'must be an array or a path without control characters' }] },
    {
      host: { domain: 5, root: 6 },
      errors: [
        { pointer: '/domain', message: 'must be a string (got an integer)' },
        { pointer: '/root', message: 'must be a string (got an integer)' },
      ],
    },
    { host: { '\ud800': 1 }, errors: [{ pointer: '/\ud800', message: /not valid Unicode/ }] },
  ];

  it.each(cases.map((c) => ({ ...c, json: JSON.stringify(c.host) })))('$json', ({ host, errors }) => {
    expect(validateHostConfiguration(host)).toEqual(
      errors.map(({ pointer, message }) => ({
        pointer,
        message: message instanceof RegExp ? expect.stringMatching(message) : message,
      })),
    );
  });
});
