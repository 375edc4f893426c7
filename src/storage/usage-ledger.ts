/**
 * D1 access to what each user uses against the quotas (schema/migrations/0009_quotas.sql,
 * 0017_stored_bytes.sql): the bytes each user stores on each domain, the reservations
 * coordinators hold until their commit, and the log of deploys begun. Times are D1's own clock, so
 * that the Worker and every coordinator agree on them.
 *
 * The arithmetic that keeps a user within MAX_SITES_PER_USER and MAX_USER_BYTES lives in the SQL
 * below: D1 runs one statement at a time, so a conditional insert that checks the sum it adds to
 * cannot interleave with another coordinator's, whichever domains they serve.
 *
 * `stored_bytes` keeps one total per (user, domain), the sum of the objects the domain's
 * coordinator records for that user (src/coordinator/records/object-ledger.ts); `stored_objects`, a row per
 * object, is what each domain's coordinator moves into it on first use. Until every domain has
 * moved, a user's bytes are both tables' sums.
 */

/** A stored object and its size in bytes. */
export interface StoredObject {
  key: string;
  bytes: number;
}

/** An object as `stored_objects` recorded it, and the user it counts against. */
export interface LegacyObject extends StoredObject {
  userId: string;
}

const now = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
export const hourMs = 3_600_000;
/** How long a reservation holds quota: far longer than the commit that turns it into stored bytes takes. */
export const reservationMs = 15 * 60_000;

/** What the user bound to the parameter `user` (`?1`, say) uses, as SQL expressions. */
const sum = {
  sites: (user: string) => `(SELECT COUNT(*) FROM sites WHERE user_id = ${user})`,
  bytes: (user: string) =>
    `((SELECT COALESCE(SUM(bytes), 0) FROM stored_bytes WHERE user_id = ${user}) + (SELECT COALESCE(SUM(bytes), 0) FROM stored_objects WHERE user_id = ${user}))`,
  domainBytes: (user: string, domain: string) =>
    `((SELECT COALESCE(SUM(bytes), 0) FROM stored_bytes WHERE user_id = ${user} AND domain = ${domain}) + (SELECT COALESCE(SUM(bytes), 0) FROM stored_objects WHERE domain = ${domain} AND user_id = ${user}))`,
  reserved: (column: 'sites' | 'bytes', user: string) => `(SELECT COALESCE(SUM(${column}), 0) FROM quota_reservations WHERE user_id = ${user} AND expires > ${now})`,
  deploys: (user: string) => `(SELECT COUNT(*) FROM user_deploys WHERE user_id = ${user} AND at > ${now} - ${hourMs})`,
};

/**
 * Statement that adds to each user's bytes on `domain` their delta (negative: freed), for the
 * batch of the commit that changes them; a total that falls to zero goes (a trigger).
 */
export function addStoredBytes(db: D1Database, domain: string, deltas: ReadonlyMap<string, number>): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO stored_bytes (user_id, domain, bytes)
       SELECT value ->> 0, ?1, value ->> 1 FROM json_each(?2) WHERE true
       ON CONFLICT (user_id, domain) DO UPDATE SET bytes = bytes + excluded.bytes`,
    )
    .bind(domain, JSON.stringify([...deltas]));
}

/** Statement that forgets the bytes `users` store on `domain`: its site is unpublished. */
export function forgetStoredBytes(db: D1Database, domain: string, users: readonly string[]): D1PreparedStatement {
  return db.prepare('DELETE FROM stored_bytes WHERE domain = ?1 AND user_id IN (SELECT value FROM json_each(?2))').bind(domain, JSON.stringify(users));
}

/**
 * Statements, for one batch, that make `domain`'s totals exactly `totals` (each user's bytes), the
 * sums its coordinator records: an operator's reconciliation after D1 was restored to an earlier
 * minute, or a coordinator's storage was lost (docs/operating.md). Every site is reconciled after a
 * restore: the delete finds the domain's totals by their index by domain (migration 0021).
 */
export function replaceStoredBytes(db: D1Database, domain: string, totals: ReadonlyMap<string, number>): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM stored_bytes WHERE domain = ?').bind(domain),
    db
      .prepare(`INSERT INTO stored_bytes (user_id, domain, bytes) SELECT value ->> 0, ?1, value ->> 1 FROM json_each(?2) WHERE value ->> 1 != 0`)
      .bind(domain, JSON.stringify([...totals])),
  ];
}

/** The rows `stored_objects` still holds for `domain`. */
export async function legacyObjectsOf(db: D1Database, domain: string): Promise<LegacyObject[]> {
  const { results } = await db.prepare('SELECT key, user_id AS userId, bytes FROM stored_objects WHERE domain = ?').bind(domain).all<LegacyObject>();
  return results;
}

/** Statements, for one batch, that move `domain`'s rows of `stored_objects` into its totals: each user's sum added, the rows deleted. */
export function moveLegacyObjects(db: D1Database, domain: string): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO stored_bytes (user_id, domain, bytes)
         SELECT user_id, domain, SUM(bytes) FROM stored_objects WHERE domain = ?1 GROUP BY user_id HAVING SUM(bytes) != 0
         ON CONFLICT (user_id, domain) DO UPDATE SET bytes = bytes + excluded.bytes`,
      )
      .bind(domain),
    db.prepare('DELETE FROM stored_objects WHERE domain = ?').bind(domain),
  ];
}

/** Up to `limit` domains whose rows `stored_objects` still holds: those the daily cron moves. */
export async function domainsWithLegacyObjects(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db.prepare('SELECT DISTINCT domain FROM stored_objects LIMIT ?').bind(limit).all<{ domain: string }>();
  return results.map((row) => row.domain);
}

/** What a user uses: committed sites and bytes, what live reservations hold besides, and the last hour's deploys. */
export interface Usage {
  sites: number;
  bytes: number;
  reservedSites: number;
  reservedBytes: number;
  deploysLastHour: number;
  /** When the oldest of the last hour's deploys leaves the hour, in milliseconds from now; null when none. */
  nextDeployFreesInMs: number | null;
  /** Whether `domain`, when asked about, has a site, and the bytes it stores for this user: the most a change of theirs to it can free. */
  domainHosted: boolean;
  domainBytes: number;
}

function usageStatement(db: D1Database, userId: string, domain = ''): D1PreparedStatement {
  return db
    .prepare(
      `SELECT
         ${sum.sites('?1')} AS sites,
         ${sum.bytes('?1')} AS bytes,
         ${sum.reserved('sites', '?1')} AS reservedSites,
         ${sum.reserved('bytes', '?1')} AS reservedBytes,
         ${sum.deploys('?1')} AS deploysLastHour,
         (SELECT MIN(at) + ${hourMs} - ${now} FROM user_deploys WHERE user_id = ?1 AND at > ${now} - ${hourMs}) AS nextDeployFreesInMs,
         EXISTS (SELECT 1 FROM sites WHERE domain = ?2) AS domainHosted,
         ${sum.domainBytes('?1', '?2')} AS domainBytes`,
    )
    .bind(userId, domain);
}

type UsageRow = Omit<Usage, 'domainHosted'> & { domainHosted: number };

function usageOf(row: UsageRow): Usage {
  return { ...row, domainHosted: row.domainHosted === 1 };
}

export async function readUsage(db: D1Database, userId: string, domain?: string): Promise<Usage> {
  return usageOf((await usageStatement(db, userId, domain).first<UsageRow>())!);
}

/** Limits a statement checks what it adds against. */
export interface QuotaLimits {
  maxSites: number;
  maxBytes: number;
  deploysPerHour: number;
}

/** What one change adds: 0 sites, or 1 for a change that claims a new domain; the bytes of the objects it stored. */
export interface QuotaClaim {
  userId: string;
  sites: number;
  bytes: number;
  /** The bytes counted against its user that the change's own batch frees (its collection): they make room for its own. */
  freeing?: number;
}

/**
 * Reserves `claim` as `id`: its site, and the bytes it adds beyond those it frees (none when it
 * frees as many), when the user's committed sites and bytes with every live reservation stay
 * within `limits` with them; what adds nothing is never refused. One statement: D1 decides it
 * against every other reservation and commit. Answers whether it did.
 *
 * The sums hold S + R ≤ L, S being what is committed and R what live reservations hold: a
 * reservation is taken only within it; a commit adds to S at most what it reserved (its user's
 * delta is the bytes it records less `freeing`, which its coordinator reads, under its lock, from
 * the same records that delta is computed from), and ends the reservation in the same batch;
 * releasing, expiring, collecting and unpublishing only lower the sums, and moving a domain's
 * `stored_objects` rows into its totals leaves them as they were (one batch). So S ≤ L, however
 * coordinators interleave (test/quotas/stored-bytes.test.ts, "quota arithmetic").
 */
export async function reserve(db: D1Database, id: string, claim: QuotaClaim, limits: QuotaLimits): Promise<boolean> {
  const { userId, sites, bytes, freeing = 0 } = claim;
  const { meta } = await db
    .prepare(
      `INSERT INTO quota_reservations (id, user_id, sites, bytes, expires)
       SELECT ?1, ?2, ?3, ?4, ${now} + ${reservationMs}
       WHERE (?3 = 0 OR ${sum.sites('?2')} + ${sum.reserved('sites', '?2')} + ?3 <= ?5)
         AND (?4 = 0 OR ${sum.bytes('?2')} + ${sum.reserved('bytes', '?2')} + ?4 <= ?6)`,
    )
    .bind(id, userId, sites, Math.max(0, bytes - freeing), limits.maxSites, limits.maxBytes)
    .run();
  return meta.changes === 1;
}

/**
 * Statement that ends the reservation `id` of `userId`, and any of theirs that expired (their
 * coordinator stopped before its commit): put in the commit's batch (what it held is now committed),
 * or run when the change failed.
 */
export function release(db: D1Database, id: string, userId: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM quota_reservations WHERE id = ?1 OR (user_id = ?2 AND expires <= ${now})`).bind(id, userId);
}

/**
 * Records the deploy `id` that `userId` begins on `domain`, when the last hour's deploys leave room
 * for it and, for a domain with no site, the user's sites do too. Answers whether it did, and the
 * usage it was decided on. Two statements: the insert's trigger sweeps the user's deploys older
 * than an hour (schema/migrations/0017_stored_bytes.sql).
 */
export async function beginDeploy(db: D1Database, id: string, userId: string, domain: string, limits: QuotaLimits): Promise<{ begun: boolean; usage: Usage }> {
  const [usage, inserted] = await db.batch([
    usageStatement(db, userId, domain),
    db
      .prepare(
        `INSERT INTO user_deploys (id, user_id, at)
         SELECT ?1, ?2, ${now}
         WHERE ${sum.deploys('?2')} < ?4
           AND (EXISTS (SELECT 1 FROM sites WHERE domain = ?3) OR ${sum.sites('?2')} + ${sum.reserved('sites', '?2')} < ?5)
         RETURNING id`,
      )
      .bind(id, userId, domain, limits.deploysPerHour, limits.maxSites),
  ]);
  // The row it returns, not the changes counted: those count the rows its trigger swept too.
  return { begun: inserted!.results.length === 1, usage: usageOf(usage!.results[0] as UsageRow) };
}

/** Forgets the deploy `id`: it was refused, and so stored nothing. */
export async function forgetDeploy(db: D1Database, id: string): Promise<void> {
  await db.prepare('DELETE FROM user_deploys WHERE id = ?').bind(id).run();
}
