/**
 * The daily cron's share of moving each domain's rows out of the global D1 into its coordinator
 * (issue 32): `site_blobs` (./blob-index.ts) and `deployments` (./deployment-store.ts). A domain's
 * rows move when its coordinator is first used (Commits.moved); this moves those of domains not
 * used since, a bounded number a run, until D1's tables are empty and a migration can drop them
 * (docs/operating.md). A table that moves adds its query of the domains it still holds here.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { domainsWithD1Blobs, domainsWithD1Deployments } from '../storage/deployments-table';
import { siteCoordinator } from './coordinator-client';

/** Moves at once: a Worker invocation keeps six connections open at most. */
const concurrentMoves = 6;

/** The tables whose rows move, each by the domains that still have rows there (at most `limit`). */
const tablesToMove: readonly ((db: D1Database, limit: number) => Promise<string[]>)[] = [domainsWithD1Blobs, domainsWithD1Deployments];

/** Moves the rows of at most `domainsPerRun` domains; answers the domains moved. One that fails is logged, and left to a later run. */
export async function moveOutOfD1(env: Env, domainsPerRun = 1000): Promise<string[]> {
  const found = await Promise.all(tablesToMove.map((domainsWithRows) => domainsWithRows(env.DB, domainsPerRun)));
  const domains = [...new Set(found.flat())].slice(0, domainsPerRun);
  const waiting = [...domains];
  await Promise.all(
    Array.from({ length: concurrentMoves }, async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        try {
          await siteCoordinator(env, domain).moveOutOfD1(domain);
        } catch (error) {
          log.error("Moving a site's rows out of D1 failed; a later run tries again", { domain, error });
        }
      }
    }),
  );
  if (domains.length > 0) log.info('Moved site rows out of D1', { sites: domains.length });
  return domains;
}
