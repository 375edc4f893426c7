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
import { settingsOf } from '../platform/settings';

/** The bindings' period (wrangler.toml): a refused client may try again once it has passed. */
const periodSeconds = 60;

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const principal = await authenticate(c).catch(() => undefined);
  const settings = settingsOf(c.env);
  const counted = principal
    ? { limiter: c.env.USER_RATE_LIMITER, key: principal.userId, limit: 'API_REQUESTS_PER_MINUTE', value: settings.apiRequestsPerMinute, who: 'this user' }
    : { limiter: c.env.ADDRESS_RATE_LIMITER, key: clientAddressOf(c.req.raw), limit: 'ANONYMOUS_REQUESTS_PER_MINUTE', value: settings.anonymousRequestsPerMinute, who: 'this address without a valid token' };
  const { success } = await counted.limiter.limit({ key: counted.key });
  if (!success) {
    throw new Problem('rate-limited', `More than ${counted.value.toLocaleString('en')} API requests a minute came from ${counted.who}; try again in ${periodSeconds} seconds.`, {
      extensions: { limit: counted.limit, value: counted.value },
      headers: { 'retry-after': String(periodSeconds) },
    });
  }
  await next();
});
