/**
 * The daily cron's share of the moves of per-domain rows out of the global D1: `site_blobs`
 * (./blob-index.ts), `deployments` (./deployment-store.ts) and `stored_objects`
 * (./object-ledger.ts). A domain's rows move when its coordinator is first used, and this moves
 * those of domains not used since, a bounded number a run, until D1's table is empty and a
 * migration can drop it (docs/operating.md).
 */
import type { Env } from '../../platform/env';
import { log } from '../../platform/log';
import { domainsWithD1Blobs, domainsWithD1Deployments } from '../../storage/deployments-table';
import { domainsWithLegacyObjects } from '../../storage/usage-ledger';
import { siteCoordinator } from '../coordinator-client';

/** Moves at once: a Worker invocation keeps six connections open at most. */
const concurrentMoves = 6;

/** The daily cron's moves, one table after the other (each within the connections a Worker keeps open); answers the domains moved. */
export async function moveRowsOutOfD1(env: Env): Promise<string[]> {
  return [...(await moveBlobsOutOfD1(env)), ...(await moveDeploymentsOutOfD1(env)), ...(await moveStoredObjectsOutOfD1(env))];
}

/** Moves the `site_blobs` rows of at most `domainsPerRun` domains; answers the domains moved. One that fails is logged, and left to a later run. */
export async function moveBlobsOutOfD1(env: Env, domainsPerRun = 1000): Promise<string[]> {
  return moveOutOfD1(env, 'blob', await domainsWithD1Blobs(env.DB, domainsPerRun));
}

/** Moves the `deployments` rows of at most `domainsPerRun` domains into their coordinators (their directory rows left in D1), as moveBlobsOutOfD1 does. */
export async function moveDeploymentsOutOfD1(env: Env, domainsPerRun = 1000): Promise<string[]> {
  return moveOutOfD1(env, 'deployment', await domainsWithD1Deployments(env.DB, domainsPerRun));
}

/** Moves the `stored_objects` rows of at most `domainsPerRun` domains into their byte totals, as moveBlobsOutOfD1 does. */
export async function moveStoredObjectsOutOfD1(env: Env, domainsPerRun = 1000): Promise<string[]> {
  return moveOutOfD1(env, 'stored object', await domainsWithLegacyObjects(env.DB, domainsPerRun));
}

async function moveOutOfD1(env: Env, rows: string, domains: readonly string[]): Promise<string[]> {
  const waiting = [...domains];
  await Promise.all(
    Array.from({ length: concurrentMoves }, async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        try {
          // Any question to the coordinator moves its domain's rows first (Commits.moved).
          await siteCoordinator(env, domain).knownBlobs(domain, []);
        } catch (error) {
          log.error(`Moving a site's ${rows} rows out of D1 failed; a later run tries again`, { domain, error });
        }
      }
    }),
  );
  if (domains.length > 0) log.info(`Moved ${rows} rows out of D1`, { sites: domains.length });
  return [...domains];
}
