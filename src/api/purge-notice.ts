import type { Context } from 'hono';
import type { OnPurgePending } from '../coordinator/coordinator-client';
import type { AppEnv } from '../platform/app-env';

/**
 * The header a change answers with when it is committed but Cloudflare has not accepted the
 * purge that makes it live in every location yet (docs/serving.md): until it has (it is stored
 * and sent as soon as Cloudflare's limits allow), a location may serve what the change replaced,
 * for the live record's max-age (60 s) at most.
 */
export const purgePendingHeader = 'Sitehost-Purge';

/** For a change made for `c`: marks its response when the change's purge is pending. */
export function purgeNotice(c: Context<AppEnv>): OnPurgePending {
  return () => c.header(purgePendingHeader, 'pending');
}
