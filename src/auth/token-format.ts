/**
 * The form of a service-issued API token, as GitHub's are: a fixed prefix that secret scanners
 * match, random characters, and a checksum of them, so that a mistyped or made-up token is
 * refused before any lookup.
 *
 *   sitehost_<30 base62 characters: 178 random bits><6 base62 characters: CRC32 of the 30>
 *
 * Scanning regex (docs/api.md): `\bsitehost_[0-9A-Za-z]{36}\b`.
 */
import { buf as crc32 } from 'crc-32';

export const tokenPrefix = 'sitehost_';
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomLength = 30;
const checksumLength = 6;
/** What secret scanners match, and what a bearer token must look like to be read as one of ours. */
export const tokenPattern = new RegExp(`^${tokenPrefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`);

const encoder = new TextEncoder();

/** `value` in base62, left-padded with zeros to `length` characters. */
function base62Of(value: number, length: number): string {
  let text = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) text = base62[rest % 62] + text;
  return text.padStart(length, '0');
}

/** The checksum characters of a token's random part: its CRC32 (unsigned), in six base62 digits (62⁶ > 2³²). */
function checksumOf(random: string): string {
  return base62Of(crc32(encoder.encode(random)) >>> 0, checksumLength);
}

/** A new token: 30 characters drawn uniformly from 62 (rejection sampling: no bias toward the first ones). */
export function newToken(): string {
  let random = '';
  while (random.length < randomLength) {
    for (const byte of crypto.getRandomValues(new Uint8Array(randomLength))) {
      // 248 = 4 × 62: bytes from 248 up would favour the first eight characters.
      if (byte < 248 && random.length < randomLength) random += base62[byte % 62];
    }
  }
  return `${tokenPrefix}${random}${checksumOf(random)}`;
}

/** Whether `token` is meant to be one of ours (its prefix), whatever else is wrong with it. */
export function looksLikeApiToken(token: string): boolean {
  return token.startsWith(tokenPrefix);
}

/** Whether `token` has our form and a checksum that matches: checked before any lookup. */
export function hasValidChecksum(token: string): boolean {
  if (!tokenPattern.test(token)) return false;
  const random = token.slice(tokenPrefix.length, tokenPrefix.length + randomLength);
  const expected = encoder.encode(checksumOf(random));
  const given = encoder.encode(token.slice(tokenPrefix.length + randomLength));
  return crypto.subtle.timingSafeEqual(expected, given);
}

/** The hex SHA-256 of `text`: of a token, all that is stored of it. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Whether two hex hashes are equal, in time that does not depend on where they differ. */
export function sameHash(a: string, b: string): boolean {
  const [left, right] = [encoder.encode(a), encoder.encode(b)];
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}

/** A token's public id (in URLs and lists), unrelated to its secret. */
export function newTokenId(): string {
  return crypto.randomUUID();
}

export function isTokenId(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text);
}
