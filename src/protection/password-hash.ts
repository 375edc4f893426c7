/**
 * Passwords as the service stores them: a salted PBKDF2-HMAC-SHA-256 hash (WebCrypto, in the
 * Worker and in Node alike). Why PBKDF2: it is the one password KDF WebCrypto offers, so it needs
 * no WebAssembly and no package in the Worker; scrypt and Argon2 are not in WebCrypto, and their
 * JavaScript ports would spend the Worker's CPU limit on one hash. 100,000 iterations is the most
 * the Workers runtime allows; a password is hashed once when set, and once per sign-in attempt
 * (rate limited), never per request: a signed-in visitor carries a signed grant instead.
 */
import { base64url } from 'jose';

export interface StoredPassword {
  /** 16 random bytes, base64url. */
  salt: string;
  /** 32 bytes, base64url. */
  hash: string;
  iterations: number;
}

/** The most PBKDF2 iterations the Workers runtime derives (it refuses more). */
export const passwordIterations = 100_000;

const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<StoredPassword> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, passwordIterations);
  return { salt: base64url.encode(salt), hash: base64url.encode(hash), iterations: passwordIterations };
}

/** A hash no password matches, derived when there is nothing to compare with, so that a refusal takes as long either way. */
const nothingStored: StoredPassword = { salt: 'AAAAAAAAAAAAAAAAAAAAAA', hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', iterations: passwordIterations };

/**
 * Whether `password` is the one `stored` hashes. Always derives one hash (against a stand-in when
 * `stored` is null) and compares in constant time, so its timing says nothing of which part was wrong.
 */
export async function passwordMatches(password: string, stored: StoredPassword | null): Promise<boolean> {
  const against = stored ?? nothingStored;
  const derived = await derive(password, base64url.decode(against.salt), against.iterations);
  return constantTimeEqual(derived, base64url.decode(against.hash)) && stored !== null;
}

/** Equal bytes, compared in time that depends on their length only. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let i = 0; i < a.byteLength; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
