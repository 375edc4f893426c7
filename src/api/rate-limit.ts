/**
 * The API's rate limits (docs/design.md#rate-limits), with the Workers Rate Limiting binding:
 * a request with a valid token counts against its user (`sub`), whatever token of theirs it
 * carries; any other request (no token, a refused one) against its client address, so that
 * neither fresh tokens nor garbage ones buy a new count. A token whose check must read D1 (none
 * at this location remembers it) is counted against its address before that read, so that a
 * stream of forged tokens is refused before it costs D1 anything. Counts are per Cloudflare
 * location and per minute. Only the API hosts pass here: hosted sites are not limited.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { authenticate } from '../auth/middleware';
import { clientAddressOf } from '../http/client-address';
import { Problem } from '../http/problem';
import type { AppEnv } from '../platform/app-env';
import { rateLimitPeriodSeconds } from '../platform/binding-checks';
import { settingsOf } from '../platform/settings';

interface Count {
  limiter: RateLimit;
  key: string;
  setting: string;
  limit: number;
  from: string;
}

/** Counts one request; the 429 problem naming the setting when it is one too many. */
async function refusal(count: Count): Promise<Problem | null> {
  const { success } = await count.limiter.limit({ key: count.key });
  if (success) return null;
  const detail = `More than ${count.limit.toLocaleString('en')} API requests a minute came from ${count.from}; try again in ${rateLimitPeriodSeconds} seconds.`;
  return new Problem('rate-limited', detail, {
    extensions: { limit: count.setting, value: count.limit },
    headers: { 'retry-after': String(rateLimitPeriodSeconds) },
  });
}

function addressCount(c: Context<AppEnv>): Count {
  const { anonymousRequestsPerMinute } = settingsOf(c.env);
  const from = 'this address without a valid token';
  return { limiter: c.env.ADDRESS_RATE_LIMITER, key: clientAddressOf(c.req.raw), setting: 'ANONYMOUS_REQUESTS_PER_MINUTE', limit: anonymousRequestsPerMinute, from };
}

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  // Counted once, at the first of: before the token's check reads D1, or once the token is refused.
  let byAddress: Promise<Problem | null> | undefined;
  const countAddress = () => (byAddress ??= refusal(addressCount(c)));
  const principal = await authenticate(c, async () => {
    const refused = await countAddress();
    if (refused) throw refused;
  }).catch(() => undefined);
  const { apiRequestsPerMinute } = settingsOf(c.env);
  const refused = principal
    ? await refusal({ limiter: c.env.USER_RATE_LIMITER, key: principal.userId, setting: 'API_REQUESTS_PER_MINUTE', limit: apiRequestsPerMinute, from: 'this user' })
    : await countAddress();
  if (refused) throw refused;
  await next();
});
