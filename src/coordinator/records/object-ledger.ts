/**
 * What each object its domain stores counts against MAX_USER_BYTES (issue 32): its key, the user
 * it counts against and its size, kept by the domain's coordinator in its own SQLite storage. D1
 * keeps one total per (user, domain) (`stored_bytes`, src/storage/usage-ledger.ts), no longer a
 * row per object, and the batch of a commit (a blob upload's too) changes it with one statement:
 * each user's delta.
 *
 * The coordinator alone records and frees its domain's objects, under its lock, so the totals are
 * always the sums of its records: what a change records or forgets waits in `pending_ledger` and
 * the batch that commits it changes the totals by as much; it is settled once D1 recorded the
 * change, and dropped when it did not (../commit/commits.ts). What a change frees for its user is then
 * read here, from the very records its delta is computed from.
 *
 * A domain's `stored_objects` rows written to D1 before this moved are copied here on first use
 * and, in one D1 batch, added to the totals and deleted: the move takes no stop, each domain
 * moves once, and one cut anywhere is done again whole (a copy here is kept; D1's batch is atomic).
 */
import type { Env } from '../../platform/env';
import { type StoredObject, addStoredBytes, forgetStoredBytes, legacyObjectsOf, moveLegacyObjects } from '../../storage/usage-ledger';
import { MoveOnce } from './move-once';

/**
 * What a change does to the ledger: the objects it stores (counted against `userId`), those it
 * deletes (all of them: an unpublish), and those it counts against another user from now on
 * (`reassign`: a claim's deployment that reuses blobs an upload stranded by the claim stored).
 */
export interface ObjectChange {
  store?: { userId: string; objects: readonly StoredObject[] };
  reassign?: { userId: string; keys: readonly string[] };
  forgetObjects?: readonly string[];
  forgetAll?: boolean;
}

export class ObjectLedger {
  readonly #move: MoveOnce;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
  ) {
    storage.sql.exec('CREATE TABLE IF NOT EXISTS ledger (key TEXT PRIMARY KEY, user_id TEXT NOT NULL, bytes INTEGER NOT NULL)');
    // `stored`: 1 for an object the change records, 0 for one it forgets, 2 for one it counts against `user_id` instead of the ledger's.
    storage.sql.exec('CREATE TABLE IF NOT EXISTS pending_ledger (key TEXT PRIMARY KEY, user_id TEXT NOT NULL, bytes INTEGER NOT NULL, stored INTEGER NOT NULL)');
    this.#move = new MoveOnce(storage, 'objects-moved-from-d1', (domain) => this.#copy(domain));
  }

  /** Resolves once `domain`'s rows in D1's `stored_objects`, if any, are here (and counted in its totals). Call it before any other method. */
  moved(domain: string): Promise<void> {
    return this.#move.moved(domain);
  }

  async #copy(domain: string): Promise<void> {
    const { DB } = this.envOf();
    const rows = await legacyObjectsOf(DB, domain);
    // A copy left by a move cut before its batch is of the same rows: nothing writes them any more.
    this.storage.transactionSync(() => {
      for (const row of rows) this.storage.sql.exec('INSERT INTO ledger (key, user_id, bytes) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', row.key, row.userId, row.bytes);
    });
    if (rows.length > 0) await DB.batch(moveLegacyObjects(DB, domain));
  }

  /** The bytes recorded for the objects `keys` counted against others than `userId`: what reassigning them to `userId` adds to their bytes. */
  bytesOfOthers(keys: readonly string[], userId: string): number {
    return this.bytes(keys) - this.bytes(keys, userId);
  }

  /** The bytes recorded for the objects `keys` (against `userId` alone, when given): what a change that deletes them frees. */
  bytes(keys: readonly string[], userId?: string): number {
    const [row] = this.storage.sql.exec<{ bytes: number }>(
      'SELECT COALESCE(SUM(bytes), 0) AS bytes FROM ledger WHERE key IN (SELECT value FROM json_each(?1)) AND (?2 IS NULL OR user_id = ?2)',
      JSON.stringify(keys),
      userId ?? null,
    );
    return row!.bytes;
  }

  /**
   * Before a change commits (inside its storage transaction): holds what it records and forgets
   * until it is settled. Answers the statements its D1 batch runs to change the totals as much
   * (none when they stay as they are): each user's delta, or, for an unpublish, the deletion of
   * the domain's totals.
   */
  pend(domain: string, change: ObjectChange): D1PreparedStatement[] {
    const { sql } = this.storage;
    sql.exec('DELETE FROM pending_ledger');
    const forgotten = change.forgetAll ? 'true' : 'key IN (SELECT value FROM json_each(?))';
    const forgetting = change.forgetAll ? [] : [JSON.stringify(change.forgetObjects ?? [])];
    sql.exec(`INSERT INTO pending_ledger (key, user_id, bytes, stored) SELECT key, user_id, bytes, 0 FROM ledger WHERE ${forgotten}`, ...forgetting);
    // An object recorded already is counted once; one a change both stores and forgets is forgotten.
    for (const object of change.store?.objects ?? []) {
      sql.exec(
        `INSERT INTO pending_ledger (key, user_id, bytes, stored) SELECT ?1, ?2, ?3, 1 WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE key = ?1)
         ON CONFLICT (key) DO NOTHING`,
        object.key,
        change.store!.userId,
        object.bytes,
      );
    }
    if (change.reassign) {
      sql.exec(
        `INSERT INTO pending_ledger (key, user_id, bytes, stored) SELECT key, ?2, bytes, 2 FROM ledger WHERE key IN (SELECT value FROM json_each(?1)) AND user_id != ?2
         ON CONFLICT (key) DO NOTHING`,
        JSON.stringify(change.reassign.keys),
        change.reassign.userId,
      );
    }
    const { DB } = this.envOf();
    if (change.forgetAll) {
      const users = [...sql.exec<{ user_id: string }>('SELECT DISTINCT user_id FROM ledger')].map((row) => row.user_id);
      return users.length > 0 ? [forgetStoredBytes(DB, domain, users)] : [];
    }
    // A reassigned object adds to its new user's bytes what it takes from its old one's.
    const deltas = sql.exec<{ user_id: string; delta: number }>(
      `SELECT user_id, SUM(delta) AS delta FROM (
         SELECT user_id, CASE stored WHEN 0 THEN -bytes ELSE bytes END AS delta FROM pending_ledger
         UNION ALL SELECT ledger.user_id, -ledger.bytes FROM pending_ledger JOIN ledger ON ledger.key = pending_ledger.key WHERE pending_ledger.stored = 2
       ) GROUP BY user_id HAVING delta != 0`,
    );
    const byUser = new Map([...deltas].map((row) => [row.user_id, row.delta]));
    return byUser.size > 0 ? [addStoredBytes(DB, domain, byUser)] : [];
  }

  /**
   * Brings the records in line with the bucket after D1 was restored or this storage lost (an
   * operator's reconciliation, ../commit/reconcile.ts): a record of an object the bucket no longer
   * has goes, and each of `held` (what the site holds now) the bucket has and no record names is
   * counted against `owner` (none without a site). Answers each user's bytes, the totals D1 is to
   * keep. Call it under the coordinator's lock, with no change pending.
   */
  async reconcile(held: readonly string[], owner: string | null, bucket: R2Bucket): Promise<Map<string, number>> {
    const { sql } = this.storage;
    const recorded = new Set([...sql.exec<{ key: string }>('SELECT key FROM ledger')].map((row) => row.key));
    const sizes = new Map<string, number | null>();
    for (const key of new Set([...recorded, ...(owner === null ? [] : held)])) sizes.set(key, (await bucket.head(key))?.size ?? null);
    this.storage.transactionSync(() => {
      for (const [key, size] of sizes) {
        if (size === null) sql.exec('DELETE FROM ledger WHERE key = ?', key);
        else if (!recorded.has(key)) sql.exec('INSERT INTO ledger (key, user_id, bytes) VALUES (?, ?, ?)', key, owner!, size);
      }
    });
    const totals = sql.exec<{ user_id: string; bytes: number }>('SELECT user_id, SUM(bytes) AS bytes FROM ledger GROUP BY user_id');
    return new Map([...totals].map((row) => [row.user_id, row.bytes]));
  }

  /** The change committed: its records are the ledger's. */
  settle(): void {
    const { sql } = this.storage;
    sql.exec('DELETE FROM ledger WHERE key IN (SELECT key FROM pending_ledger WHERE stored = 0)');
    sql.exec('INSERT INTO ledger (key, user_id, bytes) SELECT key, user_id, bytes FROM pending_ledger WHERE stored = 1 ON CONFLICT (key) DO NOTHING');
    sql.exec(
      'UPDATE ledger SET user_id = (SELECT user_id FROM pending_ledger WHERE pending_ledger.key = ledger.key) WHERE key IN (SELECT key FROM pending_ledger WHERE stored = 2)',
    );
    sql.exec('DELETE FROM pending_ledger');
  }

  /** The change did not commit: the ledger is as it was. */
  drop(): void {
    this.storage.sql.exec('DELETE FROM pending_ledger');
  }
}
