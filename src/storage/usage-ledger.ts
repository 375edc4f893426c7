/**
 * D1 access to what each user uses against the quotas (schema/migrations/0009_quotas.sql): the
 * ledger of stored objects, the reservations coordinators hold until their commit, and the log of
 * deploys begun. Times are D1's own clock, so that the Worker and every coordinator agree on them.
 *
 * The arithmetic that keeps a user within MAX_SITES_PER_USER and MAX_USER_BYTES lives in the SQL
 * below: D1 runs one statement at a time, so a conditional insert that checks the sum it adds to
 * cannot interleave with another coordinator's, whichever domains they serve.
 */

/** A stored object and its size in bytes. */
export interface StoredObject {
  key: string;
  bytes: number;
}

const now = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
export const hourMs = 3_600_000;
/** How long a reservation holds quota: far longer than the commit that turns it into rows takes. */
export const reservationMs = 15 * 60_000;

/** What the user bound to the parameter `user` (`?1`, say) uses, as SQL expressions. */
const sum = {
  sites: (user: string) => `(SELECT COUNT(*) FROM sites WHERE user_id = ${user})`,
  bytes: (user: string) => `(SELECT COALESCE(SUM(bytes), 0) FROM stored_objects WHERE user_id = ${user})`,
  reserved: (column: 'sites' | 'bytes', user: string) => `(SELECT COALESCE(SUM(${column}), 0) FROM quota_reservations WHERE user_id = ${user} AND expires > ${now})`,
  deploys: (user: string) => `(SELECT COUNT(*) FROM user_deploys WHERE user_id = ${user} AND at > ${now} - ${hourMs})`,
};

/** Statement that records `objects` of `domain`, stored for `userId`; an object recorded already keeps its row. */
export function recordObjects(db: D1Database, domain: string, userId: string, objects: readonly StoredObject[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO stored_objects (key, domain, user_id, bytes)
       SELECT value ->> 0, ?1, ?2, value ->> 1 FROM json_each(?3) WHERE true
       ON CONFLICT (key) DO NOTHING`,
    )
    .bind(domain, userId, JSON.stringify(objects.map((object) => [object.key, object.bytes])));
}

/** Statement that forgets the objects `keys`, which are being deleted. */
export function forgetObjects(db: D1Database, keys: readonly string[]): D1PreparedStatement {
  return db.prepare('DELETE FROM stored_objects WHERE key IN (SELECT value FROM json_each(?))').bind(JSON.stringify(keys));
}

/** Statement that forgets every object of `domain`: its site is unpublished. */
export function forgetObjectsOf(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM stored_objects WHERE domain = ?').bind(domain);
}

/** The bytes recorded for the objects `keys`. */
export async function recordedBytes(db: D1Database, keys: readonly string[]): Promise<number> {
  const sum = await db
    .prepare('SELECT COALESCE(SUM(bytes), 0) AS bytes FROM stored_objects WHERE key IN (SELECT value FROM json_each(?))')
    .bind(JSON.stringify(keys))
    .first<number>('bytes');
  return sum ?? 0;
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
         (SELECT COALESCE(SUM(bytes), 0) FROM stored_objects WHERE domain = ?2 AND user_id = ?1) AS domainBytes`,
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
  /** Recorded objects the change's own batch forgets (what its collection frees): those counted against its user make room for its own. */
  freeing?: readonly string[];
}

/**
 * Reserves `claim` as `id`: its site, and the bytes it adds beyond those it frees (none when it
 * frees as many), when the user's committed sites and bytes with every live reservation stay
 * within `limits` with them; what adds nothing is never refused. One statement: D1 decides it
 * against every other reservation and commit. Answers whether it did.
 *
 * The sums hold S + R ≤ L, S being what is committed and R what live reservations hold: a
 * reservation is taken only within it; a commit adds to S at most what it reserved, and ends the
 * reservation in the same batch; releasing, expiring, collecting and unpublishing only lower the
 * sums. So S ≤ L, however coordinators interleave (test/quotas/arithmetic.test.ts).
 */
export async function reserve(db: D1Database, id: string, claim: QuotaClaim, limits: QuotaLimits): Promise<boolean> {
  const { userId, sites, bytes, freeing = [] } = claim;
  const { meta } = await db
    .prepare(
      `INSERT INTO quota_reservations (id, user_id, sites, bytes, expires)
       SELECT ?1, ?2, ?3, added, ${now} + ${reservationMs}
       FROM (SELECT max(0, ?4 - (SELECT COALESCE(SUM(bytes), 0) FROM stored_objects WHERE user_id = ?2 AND key IN (SELECT value FROM json_each(?7)))) AS added)
       WHERE (?3 = 0 OR ${sum.sites('?2')} + ${sum.reserved('sites', '?2')} + ?3 <= ?5)
         AND (added = 0 OR ${sum.bytes('?2')} + ${sum.reserved('bytes', '?2')} + added <= ?6)`,
    )
    .bind(id, userId, sites, bytes, limits.maxSites, limits.maxBytes, JSON.stringify(freeing))
    .run();
  return meta.changes === 1;
}

/**
 * Statement that ends the reservation `id` of `userId`, and any of theirs that expired (their
 * coordinator stopped before its commit): put in the commit's batch (what it held is now rows),
 * or run when the change failed.
 */
export function release(db: D1Database, id: string, userId: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM quota_reservations WHERE id = ?1 OR (user_id = ?2 AND expires <= ${now})`).bind(id, userId);
}

/**
 * Records the deploy `id` that `userId` begins on `domain`, when the last hour's deploys leave room
 * for it and, for a domain with no site, the user's sites do too. Answers whether it did, and the
 * usage it was decided on.
 */
export async function beginDeploy(db: D1Database, id: string, userId: string, domain: string, limits: QuotaLimits): Promise<{ begun: boolean; usage: Usage }> {
  const [, usage, inserted] = await db.batch([
    db.prepare(`DELETE FROM user_deploys WHERE user_id = ? AND at <= ${now} - ${hourMs}`).bind(userId),
    usageStatement(db, userId, domain),
    db
      .prepare(
        `INSERT INTO user_deploys (id, user_id, at)
         SELECT ?1, ?2, ${now}
         WHERE ${sum.deploys('?2')} < ?4
           AND (EXISTS (SELECT 1 FROM sites WHERE domain = ?3) OR ${sum.sites('?2')} + ${sum.reserved('sites', '?2')} < ?5)`,
      )
      .bind(id, userId, domain, limits.deploysPerHour, limits.maxSites),
  ]);
  return { begun: inserted!.meta.changes === 1, usage: usageOf(usage!.results[0] as UsageRow) };
}

/** Forgets the deploy `id`: it was refused, and so stored nothing. */
export async function forgetDeploy(db: D1Database, id: string): Promise<void> {
  await db.prepare('DELETE FROM user_deploys WHERE id = ?').bind(id).run();
}
