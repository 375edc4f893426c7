/**
 * Where each content hash a site stores lies (issue 32): in its coordinator's own SQLite storage,
 * no longer in the global D1 (`site_blobs`), so that nothing in D1 grows with files. An
 * incremental deploy asks it once for a whole manifest; a multipart deploy reads it whole.
 *
 * It follows D1's commits as a hint may: an entry is added only once the change that stored its
 * bytes committed, and removed before the change that deletes its pack commits. So an entry
 * always names bytes that exist; one missing (a change that did not commit) costs a re-upload.
 * The blobs a change stores wait in `pending_blobs` until it is settled (../commit/commits.ts).
 *
 * A domain's rows written to D1 before this moved are copied here on first use and then deleted
 * from D1: the move takes no stop, and each domain moves once.
 */
import type { Env } from '../../platform/env';
import { type BlobLocation, blobsStoredIn, forgetBlobsOf } from '../../storage/deployments-table';
import { MoveOnce } from './move-once';

/** What a change does to the index: the blobs it stores, and the packs it deletes (all of them: an unpublish). */
export interface BlobChange {
  record?: readonly BlobLocation[];
  forgetPacks?: readonly string[];
  forgetAll?: boolean;
}

export class BlobIndex {
  readonly #move: MoveOnce;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
  ) {
    storage.sql.exec('CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, pack TEXT NOT NULL, offset INTEGER NOT NULL, size INTEGER NOT NULL)');
    storage.sql.exec('CREATE INDEX IF NOT EXISTS blobs_by_pack ON blobs (pack)');
    storage.sql.exec('CREATE TABLE IF NOT EXISTS pending_blobs (hash TEXT PRIMARY KEY, pack TEXT NOT NULL, offset INTEGER NOT NULL, size INTEGER NOT NULL)');
    this.#move = new MoveOnce(storage, 'blobs-moved-from-d1', (domain) => this.#copy(domain));
  }

  /** Resolves once `domain`'s rows in D1, if any, are here (and gone from D1). Call it before any other method. */
  moved(domain: string): Promise<void> {
    return this.#move.moved(domain);
  }

  async #copy(domain: string): Promise<void> {
    const { DB } = this.envOf();
    const rows = await blobsStoredIn(DB, domain);
    // A copy left by a move that stopped before its D1 delete is the same rows: entries here win.
    this.storage.transactionSync(() => this.#insert('blobs', rows, 'DO NOTHING'));
    await forgetBlobsOf(DB, domain).run();
  }

  #insert(table: 'blobs' | 'pending_blobs', blobs: readonly BlobLocation[], onConflict: string): void {
    for (const blob of blobs) {
      this.storage.sql.exec(
        `INSERT INTO ${table} (hash, pack, offset, size) VALUES (?, ?, ?, ?) ON CONFLICT (hash) ${onConflict}`,
        blob.hash,
        blob.pack,
        blob.offset,
        blob.size,
      );
    }
  }

  /** Where the stored ones of `hashes` lie. */
  known(hashes: readonly string[]): Map<string, BlobLocation> {
    const rows = this.storage.sql.exec<BlobRow>('SELECT hash, pack, offset, size FROM blobs WHERE hash IN (SELECT value FROM json_each(?))', JSON.stringify([...new Set(hashes)]));
    return new Map([...rows].map((row) => [row.hash, { ...row }]));
  }

  /** Every stored hash: what a multipart deploy need not store again. */
  all(): Map<string, BlobLocation> {
    return new Map([...this.storage.sql.exec<BlobRow>('SELECT hash, pack, offset, size FROM blobs')].map((row) => [row.hash, { ...row }]));
  }

  /** Before a change commits (inside its storage transaction): forgets what it deletes, and holds what it stores until it is settled. */
  pend(change: BlobChange): void {
    this.storage.sql.exec('DELETE FROM pending_blobs');
    if (change.forgetAll) this.storage.sql.exec('DELETE FROM blobs');
    if (change.forgetPacks?.length) this.storage.sql.exec('DELETE FROM blobs WHERE pack IN (SELECT value FROM json_each(?))', JSON.stringify(change.forgetPacks));
    // A hash stored again points at its newest copy (collected last).
    this.#insert('pending_blobs', change.record ?? [], 'DO UPDATE SET pack = excluded.pack, offset = excluded.offset, size = excluded.size');
  }

  /** The change committed: what it stored is known from now on. */
  settle(): void {
    this.storage.sql.exec(
      `INSERT INTO blobs (hash, pack, offset, size) SELECT hash, pack, offset, size FROM pending_blobs WHERE true
       ON CONFLICT (hash) DO UPDATE SET pack = excluded.pack, offset = excluded.offset, size = excluded.size`,
    );
    this.storage.sql.exec('DELETE FROM pending_blobs');
  }

  /** The change did not commit: what it would have stored is not known. */
  drop(): void {
    this.storage.sql.exec('DELETE FROM pending_blobs');
  }
}

type BlobRow = BlobLocation & Record<string, SqlStorageValue>;
