/**
 * HTTP Basic protection of paths (RFC 7617), as Netlify's `_headers` writes it:
 * `Basic-Auth: user:password other:password2`. The pairs are hashed at deploy time
 * (./password-hash.ts) and only the hashes are stored; what a visitor sends is checked against them.
 */
import { type StoredPassword, constantTimeEqual, hashPassword, passwordMatches } from './password-hash';

export interface BasicCredential {
  user: string;
  password: string;
}

export interface HashedCredential {
  user: string;
  password: StoredPassword;
}

/** Why a `Basic-Auth` value cannot be read; undefined when it can. Never quotes the value: it holds passwords. */
export function basicAuthFault(value: string): string | undefined {
  const pairs = value.split(/\s+/).filter(Boolean);
  if (pairs.length === 0) return 'Basic-Auth names no "user:password".';
  if (pairs.some((pair) => pair.indexOf(':') <= 0 || pair.endsWith(':'))) return 'Basic-Auth takes "user:password" pairs separated by spaces, each with a user name and a password.';
  return undefined;
}

/** The pairs of a `Basic-Auth` value `basicAuthFault` accepted. */
export function basicAuthPairs(value: string): BasicCredential[] {
  return value
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => {
      const colon = pair.indexOf(':');
      return { user: pair.slice(0, colon), password: pair.slice(colon + 1) };
    });
}

export function hashCredentials(pairs: readonly BasicCredential[]): Promise<HashedCredential[]> {
  return Promise.all(pairs.map(async ({ user, password }) => ({ user, password: await hashPassword(password) })));
}

/** The credentials of an `Authorization: Basic …` field; undefined for any other. */
export function basicCredentialsOf(authorization: string | null): BasicCredential | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+=*)[ ]*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Uint8Array.from(atob(match[1]!), (character) => character.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

const encoder = new TextEncoder();

/**
 * Whether `given` is one of `accepted`. One hash is derived whether or not the user name is known
 * (./password-hash.ts), and names are compared in constant time, so the timing says nothing of
 * which part was wrong.
 */
export async function credentialMatches(given: BasicCredential, accepted: readonly HashedCredential[]): Promise<boolean> {
  const name = encoder.encode(given.user);
  let found: HashedCredential | null = null;
  for (const credential of accepted) {
    const same = constantTimeEqual(encoder.encode(credential.user), name);
    if (same && found === null) found = credential;
  }
  return passwordMatches(given.password, found?.password ?? null);
}
