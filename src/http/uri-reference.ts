/**
 * A URI reference a host configuration wrote, as a header field (`Location`, `Link`) carries it:
 * ASCII. The configuration may write an IRI (RFC 3987), `/café/` or `https://bücher.example/`,
 * whose literal text URI template expansion copies as it is; raw in a field, browsers would read
 * its UTF-8 bytes as Latin-1 or refuse them. So an absolute reference is serialised by the URL
 * parser (its host in punycode, the rest percent-encoded), and in a relative one every character
 * outside printable ASCII is percent-encoded as UTF-8 (RFC 3987 §3.1). One already ASCII is sent
 * as written.
 */
export function uriReference(target: string): string {
  if (!outsidePrintableAscii.test(target)) return target;
  if (absolute.test(target) && URL.canParse(target)) return new URL(target).href;
  return target.replace(outsidePrintableAsciiRuns, percentEncode);
}

const outsidePrintableAscii = /[^\x21-\x7e]/;
// Without the `u` flag: a lone surrogate is matched too, and TextEncoder writes it as U+FFFD.
const outsidePrintableAsciiRuns = /[^\x21-\x7e]+/g;
/** A scheme (RFC 3986 §3.1) and its colon. */
const absolute = /^[a-z][a-z0-9+.-]*:/i;
const utf8 = new TextEncoder();

function percentEncode(run: string): string {
  let encoded = '';
  for (const byte of utf8.encode(run)) encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return encoded;
}
