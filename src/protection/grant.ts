/**
 * A grant: the service's signed word that whoever carries it may open one host until it expires.
 * A share link carries one, and opening it sets it as the host's cookie; a password sign-in sets
 * one too. Checking it is one HMAC-SHA-256 verification: no storage is read, so a protected page
 * costs about what an open one does (docs/serving.md, "Protected sites").
 *
 * Its text is `<payload>.<signature>`, both base64url, the payload JSON. It names:
 * - `h`, the host it opens (a site's domain, or a preview host's name), so that it opens no other;
 * - `x`, when it expires (seconds since the epoch);
 * - `v`, the site's grant epoch when it was made: revoking a site's grants, or changing its
 *   password, moves the epoch, and every grant of an earlier one is refused;
 * - `k`, how it was got: `link` (a member's share link) or `password` (the site's sign-in form,
 *   which opens it only while the site asks for a password);
 * - `p`, for a link, the path it lands on.
 */
import { base64url } from 'jose';

export type GrantKind = 'link' | 'password';

export interface Grant {
  host: string;
  /** Seconds since the epoch. */
  expires: number;
  epoch: string;
  kind: GrantKind;
  /** A link's landing path on the host (`/docs/`), always beginning with one `/`. */
  path?: string;
}

interface Payload {
  h: string;
  x: number;
  v: string;
  k: GrantKind;
  p?: string;
}

/** The longest grant text read: longer is refused before any work (a cookie is at most 4 KiB anyway). */
export const maxGrantLength = 2048;

const encoder = new TextEncoder();

export async function signGrant(key: CryptoKey, grant: Grant): Promise<string> {
  const payload: Payload = { h: grant.host, x: grant.expires, v: grant.epoch, k: grant.kind, ...(grant.path ? { p: grant.path } : {}) };
  const text = base64url.encode(JSON.stringify(payload));
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  return `${text}.${base64url.encode(signature)}`;
}

/** The grant `token` carries when its signature is the service's; undefined for anything else (whatever it says, nothing in it is trusted before). */
export async function verifiedGrant(key: CryptoKey, token: string): Promise<Grant | undefined> {
  if (token.length > maxGrantLength) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const text = token.slice(0, dot);
  let signature: Uint8Array;
  let payload: Payload;
  try {
    signature = base64url.decode(token.slice(dot + 1));
    if (!(await crypto.subtle.verify('HMAC', key, signature, encoder.encode(text)))) return undefined;
    payload = JSON.parse(new TextDecoder().decode(base64url.decode(text))) as Payload;
  } catch {
    return undefined;
  }
  return { host: payload.h, expires: payload.x, epoch: payload.v, kind: payload.k, ...(payload.p ? { path: payload.p } : {}) };
}

/** Whether `grant` opens `host` at `nowSeconds` while the site's epoch is `epoch`. */
export function grantOpens(grant: Grant, host: string, epoch: string, nowSeconds: number): boolean {
  return grant.host === host && grant.epoch === epoch && grant.expires > nowSeconds;
}

/** An HMAC-SHA-256 key for grants, derived from the service's secret with HKDF, so that it signs nothing else (a token signed with the secret itself is never a grant, nor the reverse). */
export async function grantKeyOf(secret: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info: encoder.encode('sitehost site grants') },
    material,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign', 'verify'],
  );
}
