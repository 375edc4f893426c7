/**
 * D1 access for GET /v2/configurations and its changes feed (schema/migrations/0013_configurations_feed.sql).
 * The 'configurations' clock ticks at every configuration change and stamps the changed site's
 * `configuration_modified` with its value (./sites-table.ts, tickConfigurationsClock); an unpublish
 * leaves a tombstone stamped the same way. So a clock value is a position in the history: the
 * changes after it are the rows stamped later, one per domain, at its latest state.
 */

/**
 * The database's own clock, in epoch milliseconds. Changes are stamped and reads timed by it:
 * D1 runs every statement in one order on one clock, whereas a Worker's or a Durable Object's
 * Date.now() stands still between I/O and may disagree with another machine's.
 */
export const databaseNowMs = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

/** What a revalidation, a cursor and the feed depend on: one row's worth, read before any record. */
export interface ConfigurationsClock {
  /** When the set of configurations last changed (the clock's value). */
  modified: number;
  /** When this was read, by the same clock. */
  readAt: number;
  /** The newest tombstone forgotten: the feed is complete only after it. */
  forgotten: number;
  /** The key that signs this database's cursors. */
  cursorKey: Uint8Array;
}

interface ClockRow {
  modified: number;
  readAt: number;
  forgotten: number;
  cursorKey: number[] | ArrayBuffer;
}

const clockQuery = `SELECT c.modified, ${databaseNowMs} AS readAt, f.modified AS forgotten, k.key AS cursorKey
  FROM clocks AS c, clocks AS f, service_keys AS k
  WHERE c.name = 'configurations' AND f.name = 'configurations-forgotten' AND k.name = 'configurations-cursor'`;

function toClock(row: ClockRow): ConfigurationsClock {
  return { modified: row.modified, readAt: row.readAt, forgotten: row.forgotten, cursorKey: new Uint8Array(row.cursorKey) };
}

export async function readConfigurationsClock(db: D1Database): Promise<ConfigurationsClock> {
  return toClock((await db.prepare(clockQuery).first<ClockRow>())!);
}

/** A site's configuration record as stored: its configuration is JSON text, written out as it is. */
export interface StoredConfiguration {
  domain: string;
  modified: number;
  configuration: string;
}

/** The sites whose domain sorts after `after`, in domain order; at most `limit` (a keyset page: no OFFSET). */
export async function configurationsAfter(db: D1Database, after: string, limit: number): Promise<StoredConfiguration[]> {
  const { results } = await db
    .prepare('SELECT domain, configuration_modified AS modified, configuration FROM sites WHERE domain > ? ORDER BY domain LIMIT ?')
    .bind(after, limit)
    .all<StoredConfiguration>();
  return results;
}

/** A change in the feed: a site's configuration at its latest (`configuration` JSON text), or its unpublish (null). */
export interface StoredChange {
  domain: string;
  modified: number;
  configuration: string | null;
}

/**
 * The clock, and the changes stamped after `since`, oldest first, at most `limit`: one
 * transaction, so that every change up to the clock read is among them or after the page.
 * A tombstone whose domain is published again is left out: its site is the change.
 */
export async function changesSince(db: D1Database, since: number, limit: number): Promise<{ clock: ConfigurationsClock; changes: StoredChange[] }> {
  const [clock, changes] = await db.batch([
    db.prepare(clockQuery),
    db
      .prepare(
        `SELECT domain, configuration_modified AS modified, configuration FROM sites WHERE configuration_modified > ?1
         UNION ALL
         SELECT domain, modified, NULL FROM unpublished_configurations AS gone
           WHERE modified > ?1 AND NOT EXISTS (SELECT 1 FROM sites WHERE sites.domain = gone.domain)
         ORDER BY 2 LIMIT ?2`,
      )
      .bind(since, limit),
  ]);
  return { clock: toClock((clock!.results as ClockRow[])[0]!), changes: changes!.results as StoredChange[] };
}

/** Statement, run after the clock's tick in an unpublish's batch: `domain`'s tombstone, stamped with the tick. */
export function recordUnpublished(db: D1Database, domain: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO unpublished_configurations (domain, modified) SELECT ?1, modified FROM clocks WHERE name = 'configurations'
       ON CONFLICT (domain) DO UPDATE SET modified = excluded.modified`,
    )
    .bind(domain);
}

/** Tombstones one statement forgets, and the statements one daily run makes at most: a bounded run (100,000 a day). */
const forgetBatch = 1000;
const forgetBatchesPerRun = 100;
const dayMs = 86_400_000;

/** The daily cron: forgets the tombstones older than `retentionDays` at `now`, at most `forgetBatch * forgetBatchesPerRun`; answers how many. */
export async function forgetOldUnpublished(db: D1Database, now: number, retentionDays: number): Promise<number> {
  let forgotten = 0;
  for (let batch = 0; batch < forgetBatchesPerRun; batch++) {
    const count = await forgetUnpublished(db, now - retentionDays * dayMs, forgetBatch);
    forgotten += count;
    if (count < forgetBatch) break;
  }
  return forgotten;
}

/**
 * Forgets at most `limit` tombstones stamped before `before`, oldest first, and moves the
 * horizon past them (one transaction); answers how many it forgot.
 */
export async function forgetUnpublished(db: D1Database, before: number, limit: number): Promise<number> {
  const oldest = 'SELECT domain, modified FROM unpublished_configurations WHERE modified < ?1 ORDER BY modified LIMIT ?2';
  const [, forgotten] = await db.batch([
    db
      .prepare(`UPDATE clocks SET modified = max(modified, coalesce((SELECT max(modified) FROM (${oldest})), 0)) WHERE name = 'configurations-forgotten'`)
      .bind(before, limit),
    db.prepare(`DELETE FROM unpublished_configurations WHERE domain IN (SELECT domain FROM (${oldest}))`).bind(before, limit),
  ]);
  return forgotten!.meta.changes;
}
