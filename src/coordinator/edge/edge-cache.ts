/**
 * The location's cache (Workers Cache API): what serving keeps next to the visitor, and how a
 * change clears the one thing in it that can go stale, a site's live record (docs/serving.md).
 * Keys are URLs on `EDGE_CACHE_HOST`, a host the service fixes: never a visitor's Host.
 */
import type { PurgeState } from '../../cloudflare-api/account';
import { purgeByUrl } from '../../cloudflare-api/account-client';
import type { Env } from '../../platform/env';
import { type EdgeSettings, settingsOf } from '../../platform/settings';

export const edgeKeys = {
  /** A site's live record: purged on every change, and dropped after `liveRecordMaxAgeSeconds` should a purge fail. */
  live: (settings: EdgeSettings, domain: string) => `https://${settings.cacheHost}/live/${encodeURIComponent(domain)}`,
  /** A deployment's file index: immutable, a new deployment is a new id. */
  index: (settings: EdgeSettings, deploymentId: string) => `https://${settings.cacheHost}/index/${encodeURIComponent(deploymentId)}`,
  /** A kept deployment by id, for its preview host: immutable until collected, so held `liveRecordMaxAgeSeconds`. */
  deployment: (settings: EdgeSettings, deploymentId: string) => `https://${settings.cacheHost}/deployment/${encodeURIComponent(deploymentId)}`,
  /** The domain an alias host's label names: immutable, the label being made of the domain's hash (src/content/label-checks.ts). */
  aliasDomain: (settings: EdgeSettings, label: string) => `https://${settings.cacheHost}/alias-domain/${encodeURIComponent(label)}`,
  /** A file's bytes: immutable, by content hash, whatever the site. */
  file: (settings: EdgeSettings, hash: string) => `https://${settings.cacheHost}/file/${encodeURIComponent(hash)}`,
};

/** The safety net: a location whose purge was lost serves a replaced record this long at most. */
export const liveRecordMaxAgeSeconds = 60;
/** Immutable entries: kept as long as the location likes. */
export const immutable = 'public, max-age=31536000, immutable';

/** The cache of the location serving this request. Tests and benches pass a named cache instead, as another location. */
export function defaultLocation(): Cache {
  return caches.default;
}

/**
 * Removes `urls` from every location: through the zone's purge API, by the account's batcher
 * (src/cloudflare-api/account.ts), which answers once Cloudflare accepted them or after `waitMs`
 * with the purge pending and stored; or locally, from the default cache and the named caches
 * tests and benches emulate locations with. Throws when nothing could be handed over.
 */
export async function purgeEverywhere(env: Env, urls: readonly string[], waitMs: number): Promise<PurgeState> {
  const settings = settingsOf(env).edge;
  if (settings.purge === 'cloudflare') return purgeByUrl(env, urls, waitMs);
  const named = await Promise.all(settings.localCaches.map((name) => caches.open(name)));
  await Promise.all([caches.default, ...named].flatMap((cache) => urls.map((url) => cache.delete(url))));
  return 'accepted';
}
