/**
 * D1 access to a scan of the bucket that runs across cron runs (schema/migrations/0013_configurations_feed.sql,
 * `bucket_scans`): where it goes on, and when it and the two scans before it began.
 */

export interface BucketScan {
  /** The last key listed; null: the next run begins a new scan from the start. */
  after: string | null;
  started: number;
  previousStarted: number;
  earlierStarted: number;
}

export async function readBucketScan(db: D1Database, name: string): Promise<BucketScan> {
  const row = await db
    .prepare('SELECT after, started, previous_started AS previousStarted, earlier_started AS earlierStarted FROM bucket_scans WHERE name = ?')
    .bind(name)
    .first<BucketScan>();
  return row ?? { after: null, started: 0, previousStarted: 0, earlierStarted: 0 };
}

export async function writeBucketScan(db: D1Database, name: string, scan: BucketScan): Promise<void> {
  await db
    .prepare(
      `INSERT INTO bucket_scans (name, after, started, previous_started, earlier_started) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (name) DO UPDATE SET after = ?2, started = ?3, previous_started = ?4, earlier_started = ?5`,
    )
    .bind(name, scan.after, scan.started, scan.previousStarted, scan.earlierStarted)
    .run();
}
