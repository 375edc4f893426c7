/**
 * The API's rate limits (docs/design.md#rate-limits), with the Workers Rate Limiting binding:
 * a request with a valid token counts against its user (`sub`), whatever token of theirs it
 * carries; any other request (no token, a refused one) against its client address, so that
 * neither fresh tokens nor garbage ones buy a new count. Counts are per Cloudflare location and
 * per minute. Only the API hosts pass here: hosted sites are not limited.
 */
import { createMiddleware } from 'hono/factory';
import { authenticate } from '../auth/middleware';
import { clientAddressOf } from '../http/client-address';
import { Problem } from '../http/problem';
import type { AppEnv } from '../platform/app-env';
import { rateLimitPeriodSeconds } from '../platform/binding-checks';
import { settingsOf } from '../platform/settings';

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const principal = await authenticate(c).catch(() => undefined);
  const { apiRequestsPerMinute, anonymousRequestsPerMinute } = settingsOf(c.env);
  const count = principal
    ? { limiter: c.env.USER_RATE_LIMITER, key: principal.userId, setting: 'API_REQUESTS_PER_MINUTE', limit: apiRequestsPerMinute, from: 'this user' }
    : { limiter: c.env.ADDRESS_RATE_LIMITER, key: clientAddressOf(c.req.raw), setting: 'ANONYMOUS_REQUESTS_PER_MINUTE', limit: anonymousRequestsPerMinute, from: 'this address without a valid token' };
  const { success } = await count.limiter.limit({ key: count.key });
  if (!success) {
    const detail = `More than ${count.limit.toLocaleString('en')} API requests a minute came from ${count.from}; try again in ${rateLimitPeriodSeconds} seconds.`;
    throw new Problem('rate-limited', detail, {
      extensions: { limit: count.setting, value: count.limit },
      headers: { 'retry-after': String(rateLimitPeriodSeconds) },
    });
  }
  await next();
});
