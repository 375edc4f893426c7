/** How the rest of the service calls Cloudflare's API: always through the account's one budget (./account.ts). */
import type { Env } from '../platform/env';
import type { PurgeState } from './account';
import { type ZoneAnswer, type ZoneApi, type ZoneCall, resultOf } from './zone-api';

function account(env: Env) {
  return env.CLOUDFLARE_API.get(env.CLOUDFLARE_API.idFromName('account'));
}

/**
 * Hands `urls` to the account for a purge by URL: answers `accepted` once Cloudflare accepted
 * them, or `pending` after `waitMs` (they are stored, and sent as soon as the budget allows).
 * Throws only when the account could not be reached, and then nothing was handed over.
 */
export function purgeByUrl(env: Env, urls: readonly string[], waitMs: number): Promise<PurgeState> {
  return account(env).purge([...urls], waitMs);
}

/** The zone's API within the account's budget: a call it has no room for is refused as a 429 with `retryAfterSeconds`. */
export function budgetedZoneApi(env: Env): ZoneApi {
  return async <T>(call: ZoneCall) => resultOf((await account(env).call(call)) as ZoneAnswer<T>);
}
