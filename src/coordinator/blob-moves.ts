/**
 * The daily cron's share of the move of `site_blobs` out of the global D1 (./blob-index.ts): a
 * domain's rows move when its coordinator is first used, and this moves those of domains not used
 * since, a bounded number a run, until D1's table is empty and a migration can drop it
 * (docs/operating.md).
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { domainsWithD1Blobs } from '../storage/deployments-table';
import { siteCoordinator } from './coordinator-client';

/** Moves at once: a Worker invocation keeps six connections open at most. */
const concurrentMoves = 6;

/** Moves the rows of at most `domainsPerRun` domains; answers the domains moved. One that fails is logged, and left to a later run. */
export async function moveBlobsOutOfD1(env: Env, domainsPerRun = 1000): Promise<string[]> {
  const domains = await domainsWithD1Blobs(env.DB, domainsPerRun);
  const waiting = [...domains];
  await Promise.all(
    Array.from({ length: concurrentMoves }, async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        try {
          // Any question to the coordinator moves its domain's rows first.
          await siteCoordinator(env, domain).knownBlobs(domain, []);
        } catch (error) {
          log.error("Moving a site's blob rows out of D1 failed; a later run tries again", { domain, error });
        }
      }
    }),
  );
  if (domains.length > 0) log.info('Moved blob rows out of D1', { sites: domains.length });
  return domains;
}
