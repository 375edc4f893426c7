/**
 * The cookie that carries a visitor's grant on one host: host-only (no `Domain`), `HttpOnly`,
 * `Secure` where served over https, `SameSite=Lax` (a link from another site opens the page; a
 * form posted from one carries no grant), and expiring with the grant.
 */
import { parse, serialize } from 'hono/utils/cookie';
import { WeightedLru } from './lru';

export const grantCookie = 'sitehost_grant';
export const csrfCookie = 'sitehost_csrf';

/** The value of cookie `name` in `header`, if any. */
export function cookieOf(header: string | null, name: string): string | undefined {
  return header ? parse(header, name)[name] : undefined;
}

/**
 * Grant tokens by the `Cookie` field that carried them (no token, too), weighed by the field's
 * length: a member's browser sends the same field with every request, so it is parsed once, not
 * on each (Hono's parser splits, trims, tests and decodes: about 2.5 µs a request in workerd). A
 * protected host reads no field longer than MAX_CREDENTIAL_HEADER_BYTES (256 by default), so this
 * holds a few thousand fields.
 */
const grantTokens = new WeightedLru<string, { token: string | undefined }>(1024 * 1024);

/** The grant token in the `Cookie` field `header`, if any: `cookieOf(header, grantCookie)`, parsed once per distinct field. */
export function grantTokenOf(header: string | null): string | undefined {
  if (header === null) return undefined;
  let parsed = grantTokens.get(header);
  if (!parsed) grantTokens.set(header, (parsed = { token: cookieOf(header, grantCookie) }), header.length);
  return parsed.token;
}

export function setGrantCookie(url: URL, token: string, maxAgeSeconds: number): string {
  return serialize(grantCookie, token, { path: '/', httpOnly: true, secure: url.protocol === 'https:', sameSite: 'Lax', maxAge: Math.max(0, Math.floor(maxAgeSeconds)) });
}

/** The sign-in form's half of its CSRF check, sent back with the post only from this host's own pages (`Strict`); kept for an hour, as long as a form's token. */
export function setCsrfCookie(url: URL, nonce: string): string {
  // Path=/: every page of the host that shows the form must see it, or each would set another.
  return serialize(csrfCookie, nonce, { path: '/', httpOnly: true, secure: url.protocol === 'https:', sameSite: 'Strict', maxAge: 3600 });
}
