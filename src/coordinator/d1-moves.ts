/**
 * Moving each domain's rows out of the global D1 into its coordinator (issue 32): `site_blobs`
 * (./blob-index.ts) and `deployments` (./deployment-store.ts). A domain's rows move when its
 * coordinator is first used (`MoveOutOfD1`, one per table, all awaited by Commits.moved); the
 * daily cron moves those of domains not used since, a bounded number a run (`moveOutOfD1`), until
 * D1's tables are empty and a migration can drop them (docs/operating.md). A table that moves adds
 * its query of the domains it still holds to `tablesToMove`, and its move to Commits.moved.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { domainsWithD1Blobs, domainsWithD1Deployments } from '../storage/deployments-table';
import { siteCoordinator } from './coordinator-client';

/**
 * One table's move for one coordinator: `copy` copies the domain's rows into the object and then
 * deletes them from D1, so that a stop at any instant leaves them in D1 to copy again (a copy the
 * object holds already wins). Run once however many ask at once, tried again after a failure, and
 * noted as done in the object's storage under `doneKey`.
 */
export class MoveOutOfD1 {
  #moving: Promise<void> | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly doneKey: string,
    private readonly copy: (domain: string) => Promise<void>,
  ) {}

  /** Resolves once `domain`'s rows in D1, if any, are in the object (and gone from D1). */
  moved(domain: string): Promise<void> {
    this.#moving ??= this.#move(domain).catch((error: unknown) => {
      this.#moving = undefined;
      throw error;
    });
    return this.#moving;
  }

  async #move(domain: string): Promise<void> {
    if (this.storage.kv.get(this.doneKey)) return;
    await this.copy(domain);
    this.storage.kv.put(this.doneKey, true);
  }
}

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
