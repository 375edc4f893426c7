/**
 * The room records/ owns the records a coordinator keeps in its own storage and the rules that
 * shape them: the kept deployments (this file), the blob index, the object ledger, recorded
 * uploads, the deadlines of incremental deploys, the kept window, a deployment's record and id,
 * and the one-time move of their old rows out of D1 (./move-once.ts, ./blob-moves.ts). It imports
 * no other room; it writes D1 only to delete the old rows it moved, and a change's own writes
 * reach it from the commit (../commit/commits.ts).
 *
 * A site's kept deployments (issue 32): in its coordinator's own SQLite storage, no longer in the
 * global D1 (`deployments`), so that D1 holds per kept deployment only its directory row
 * (src/storage/deployment-hosts.ts), not a copy of its host options.
 *
 * A change's deployments follow its commit as its follow-ups do (../commit/commits.ts): what it writes
 * (the deployment it makes or activates, the one it takes off the air, those it collects, all of
 * them on an unpublish) waits pending in the same storage transaction as its follow-ups, and is
 * applied once D1's batch has recorded the change, or dropped when it did not. An incremental
 * deploy still uploading involves no D1 at all: it is written at once, under the lock.
 *
 * A domain's rows written to D1 before this moved are copied here on first use and then deleted
 * from D1, their directory rows written in the same batch: the move takes no stop (./move-once.ts;
 * the daily cron moves idle domains, ./blob-moves.ts).
 * Every read below waits for it.
 */
import type { Env } from '../../platform/env';
import { type DeploymentRecord, type DeploymentsCursor, deploymentsStoredIn, forgetDeploymentsOf } from '../../storage/deployments-table';
import { MoveOnce } from './move-once';

const pendingKey = 'pending-deployments';

/** What a change does to the site's deployments, applied once it committed. */
export interface DeploymentChange {
  /** Written (made, finalized, activated, or given a pack its upload brought). */
  deployment?: DeploymentRecord;
  /** Taken off the air at `at`: another went live. */
  ended?: { id: string; at: number };
  /** Collected. */
  forgetDeployments?: readonly string[];
  /** Every deployment: the site is unpublished. */
  forgetAll?: boolean;
}

type Row = { record: string };

export class DeploymentStore {
  readonly #move: MoveOnce;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
  ) {
    // The record whole (JSON), and the columns it is looked up and ordered by.
    storage.sql.exec('CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, created INTEGER NOT NULL, state TEXT NOT NULL, alias_label TEXT, record TEXT NOT NULL)');
    storage.sql.exec('CREATE INDEX IF NOT EXISTS deployments_newest ON deployments (created DESC, id DESC)');
    this.#move = new MoveOnce(storage, 'deployments-moved-from-d1', (domain) => this.#copy(domain));
  }

  /** Resolves once `domain`'s rows in D1, if any, are here (and gone from D1, their directory rows written). */
  moved(domain: string): Promise<void> {
    return this.#move.moved(domain);
  }

  async #copy(domain: string): Promise<void> {
    const { DB } = this.envOf();
    const records = await deploymentsStoredIn(DB, domain);
    // A copy left by a move that stopped before its D1 batch is the same rows: those here win.
    this.storage.transactionSync(() => {
      for (const record of records) this.#write(record, 'OR IGNORE');
    });
    // None found: none left (a move that stopped after its batch found none either), and a new site has none.
    if (records.length > 0) await DB.batch(forgetDeploymentsOf(DB, domain));
  }

  #write(record: DeploymentRecord, conflict: 'OR IGNORE' | 'OR REPLACE'): void {
    this.storage.sql.exec(
      `INSERT ${conflict} INTO deployments (id, created, state, alias_label, record) VALUES (?, ?, ?, ?, ?)`,
      record.id,
      record.created,
      record.state,
      record.aliasLabel,
      JSON.stringify(record),
    );
  }

  #records(query: string, ...bindings: SqlStorageValue[]): DeploymentRecord[] {
    return [...this.storage.sql.exec<Row>(query, ...bindings)].map((row) => JSON.parse(row.record) as DeploymentRecord);
  }

  /** Every deployment of `domain`, uploading ones too, newest first: what the kept window is drawn from. */
  async all(domain: string): Promise<DeploymentRecord[]> {
    await this.moved(domain);
    return this.#records('SELECT record FROM deployments ORDER BY created DESC, id DESC');
  }

  /** The deployment `id` of `domain`, in any state. */
  async get(domain: string, id: string): Promise<DeploymentRecord | null> {
    await this.moved(domain);
    return this.#records('SELECT record FROM deployments WHERE id = ?', id)[0] ?? null;
  }

  /** Ready deployments of `domain`, newest first, after `cursor`; at most `limit`. */
  async page(domain: string, limit: number, cursor?: DeploymentsCursor): Promise<DeploymentRecord[]> {
    await this.moved(domain);
    // No cursor: later than every deployment.
    const after = cursor ?? { created: Number.MAX_SAFE_INTEGER, id: '' };
    return this.#records(
      `SELECT record FROM deployments WHERE state = 'ready' AND (created < ?1 OR (created = ?1 AND id < ?2)) ORDER BY created DESC, id DESC LIMIT ?3`,
      after.created,
      after.id,
      limit,
    );
  }

  /** The newest ready deployment of `domain` whose alias host's first label is `label`, as an alias host names it. */
  async newestAliased(domain: string, label: string): Promise<DeploymentRecord | null> {
    await this.moved(domain);
    return this.#records(`SELECT record FROM deployments WHERE alias_label = ? AND state = 'ready' ORDER BY created DESC, id DESC LIMIT 1`, label)[0] ?? null;
  }

  /**
   * Stores the uploading `record` while `domain` has fewer than `max` others uploading that began
   * after `since`; answers whether it did. Call it under the coordinator's lock.
   */
  async storeUploading(domain: string, record: DeploymentRecord, max: number, since: number): Promise<boolean> {
    await this.moved(domain);
    if (this.#uploading(since).count >= max) return false;
    this.#write(record, 'OR REPLACE');
    return true;
  }

  /** When the oldest deployment still uploading began, of those that began after `since`. */
  oldestUploading(since: number): number | null {
    return this.#uploading(since).oldest;
  }

  #uploading(since: number): { count: number; oldest: number | null } {
    return this.storage.sql.exec<{ count: number; oldest: number | null }>(`SELECT COUNT(*) AS count, MIN(created) AS oldest FROM deployments WHERE state = 'uploading' AND created > ?`, since).one();
  }

  /** Keeps `record`, a deployment D1 names that this store lacks (after a restore, ../commit/reconcile.ts), unless it keeps one by its id. */
  adopt(record: DeploymentRecord): void {
    this.#write(record, 'OR IGNORE');
  }

  /** Before a change commits (inside its storage transaction): holds what it does until it is settled. */
  pend(change: DeploymentChange): void {
    const { deployment, ended, forgetDeployments, forgetAll } = change;
    this.storage.kv.put(pendingKey, { deployment, ended, forgetDeployments, forgetAll } satisfies DeploymentChange);
  }

  /** The change committed: what it does is done, in the order its D1 batch did it before. */
  settle(): void {
    const change = this.storage.kv.get<DeploymentChange>(pendingKey);
    if (!change) return;
    const { sql } = this.storage;
    if (change.deployment) this.#write(change.deployment, 'OR REPLACE');
    if (change.ended) sql.exec(`UPDATE deployments SET record = json_set(record, '$.liveUntil', ?) WHERE id = ?`, change.ended.at, change.ended.id);
    if (change.forgetDeployments?.length) sql.exec('DELETE FROM deployments WHERE id IN (SELECT value FROM json_each(?))', JSON.stringify(change.forgetDeployments));
    if (change.forgetAll) sql.exec('DELETE FROM deployments');
    this.storage.kv.delete(pendingKey);
  }

  /** The change did not commit: it did nothing. */
  drop(): void {
    this.storage.kv.delete(pendingKey);
  }
}
