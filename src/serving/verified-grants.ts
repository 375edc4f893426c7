/**
 * The isolate's memory of grants it verified (src/protection/grant.ts): a member's browser sends
 * the same cookie with every request, so after the first one the gate looks its grant up rather
 * than verifying its HMAC and parsing its JSON again. Only tokens whose signature was the
 * service's are kept, each until its grant expires, under the key that verified it (a new
 * AUTH_SECRET starts afresh): nothing a visitor makes up reaches the memory, and what it holds
 * is what the token itself says. Whether a grant opens a host is still decided on every request
 * (`grantOpens`, against the live record's epoch), so a revocation or a new password refuses a
 * remembered grant as at once as any other.
 */
import { type Grant, verifiedGrant } from '../protection/grant';
import { WeightedLru } from './lru';

/** Grants kept per key: a few hundred bytes each, so about a megabyte; past it the least used goes. */
const maxRemembered = 4096;
const remembered = new WeakMap<CryptoKey, WeightedLru<string, Grant>>();

/** The grant `token` carries when the service signed it with `key` (as `verifiedGrant`), from memory when verified before. */
export async function rememberedGrant(key: CryptoKey, token: string, nowSeconds: number): Promise<Grant | undefined> {
  let grants = remembered.get(key);
  if (!grants) remembered.set(key, (grants = new WeightedLru(maxRemembered)));
  const known = grants.get(token);
  if (known && known.expires > nowSeconds) return known;
  if (known) grants.delete(token);
  const grant = await verifiedGrant(key, token);
  if (grant && grant.expires > nowSeconds) grants.set(token, grant);
  return grant;
}
