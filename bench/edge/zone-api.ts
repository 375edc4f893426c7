/**
 * Cloudflare's zone API for `npm run bench:edge`, in the bench only: every request a location
 * Worker (or the account object in it) sends out arrives here (Miniflare's `outboundService`).
 * It enforces the documented limits of the Free plan (test/support/zone-api.ts: 1,200 requests per
 * five minutes and the five-minute lockout past them, 800 URLs/s, 100 URLs a request; at a time
 * scale k, the window and lockout k times longer), waits
 * BENCH_RTT_MS (a round trip to Cloudflare's API), and purges each URL from every emulated
 * location's cache before it accepts, as Cloudflare purges before it answers.
 *
 * `GET http://bench.zone-api/stats` answers every request it saw: time, status, URLs.
 */
import { ZoneApiStandIn, freePlan } from '../../test/support/zone-api';

interface ZoneApiEnv {
  BENCH_RTT_MS: string;
  BENCH_LOCATIONS: string;
  /** Cloudflare's time runs this many times slower (bench/edge/cluster.mjs, scaledVars): its window and lockout longer. */
  BENCH_TIME_SCALE: string;
}

let standIn: ZoneApiStandIn | undefined;

function standInFor(env: ZoneApiEnv): ZoneApiStandIn {
  const scale = Number(env.BENCH_TIME_SCALE);
  const limits = { ...freePlan, windowSeconds: freePlan.windowSeconds * scale, lockoutSeconds: freePlan.lockoutSeconds * scale };
  standIn ??= new ZoneApiStandIn(limits, async (urls) => {
    const locations = await Promise.all(Array.from({ length: Number(env.BENCH_LOCATIONS) }, (_, index) => caches.open(`loc${index}`)));
    await Promise.all(locations.flatMap((location) => urls.map((url) => location.delete(url))));
  });
  return standIn;
}

export default {
  async fetch(request, env) {
    const zone = standInFor(env);
    if (new URL(request.url).hostname === 'bench.zone-api') {
      return Response.json(zone.seen.map(({ at, status, urls }) => ({ at, status, urls: urls?.length ?? 0 })));
    }
    await scheduler.wait(Number(env.BENCH_RTT_MS));
    return zone.fetch(request);
  },
} satisfies ExportedHandler<ZoneApiEnv>;
