import { AcceptEncoding } from '@remix-run/headers/accept-encoding';

/**
 * The media types Cloudflare compresses on its way out (its "Content compression" reference,
 * which `wrangler dev` follows too). A response of one of these types without its own
 * `Content-Encoding` is compressed after it leaves the Worker, and its length, ranges and
 * validators would then describe bytes never sent: so the Worker chooses the coding itself.
 */
const compressedByPlatform = new Set([
  'text/html',
  'text/richtext',
  'text/plain',
  'text/css',
  'text/x-script',
  'text/x-component',
  'text/x-java-source',
  'text/x-markdown',
  'application/javascript',
  'application/x-javascript',
  'text/javascript',
  'text/js',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'application/x-perl',
  'application/x-httpd-cgi',
  'text/xml',
  'application/xml',
  'application/rss+xml',
  'application/xml+rss',
  'application/vnd.api+json',
  'application/x-protobuf',
  'application/json',
  'multipart/bag',
  'multipart/mixed',
  'application/xhtml+xml',
  'font/ttf',
  'font/otf',
  'font/x-woff',
  'image/svg+xml',
  'application/vnd.ms-fontobject',
  'application/ttf',
  'application/x-ttf',
  'application/otf',
  'application/x-otf',
  'application/truetype',
  'application/opentype',
  'application/x-opentype',
  'application/font-woff',
  'application/eot',
  'application/font',
  'application/font-sfnt',
  'application/wasm',
  'application/javascript-binast',
  'application/manifest+json',
  'application/ld+json',
  'application/graphql+json',
  'application/geo+json',
]);

export function isCompressedByPlatform(contentType: string): boolean {
  return compressedByPlatform.has(contentType.split(';', 1)[0]!.trim().toLowerCase());
}

/** The codings the runtime applies itself to a response that names one in `Content-Encoding`. */
export type ContentCoding = 'br' | 'gzip';

function isContentCoding(coding: string): coding is ContentCoding {
  return coding === 'br' || coding === 'gzip';
}

/**
 * The coding the client prefers, if any: the first of highest weight, as the platform picks
 * it. On Cloudflare (and in `wrangler dev`) the Worker sees the platform's own
 * `Accept-Encoding`; the client's is `request.cf.clientAcceptEncoding`. Only codings the client
 * names count, as they do for the platform: `*` is no promise of gzip.
 */
export function acceptedCoding(request: Request): ContentCoding | undefined {
  const fromClient = (request.cf as { clientAcceptEncoding?: unknown } | undefined)?.clientAcceptEncoding;
  const header = typeof fromClient === 'string' ? fromClient : request.headers.get('accept-encoding');
  // In preference order: by weight, then as the client listed them.
  for (const [coding, weight] of AcceptEncoding.from(header)) {
    if (weight > 0 && isContentCoding(coding)) return coding;
  }
  return undefined;
}
