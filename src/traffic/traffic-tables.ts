/**
 * A site's traffic as its `SiteTraffic` object stores it (SQLite): counters per hour and per UTC
 * day, by host kind and deployment; top lists per bucket, capped (what the cap drops is kept as
 * "other", the value ''); visitor sketches per hour (coarse) and per day (fine); the batch ids
 * merged lately. Nothing here names a visitor.
 */
import { type Counts, type HostKind, type SiteKey, type TallyEntry, type VisitorEntry, counters } from './batch';
import { type Registers, coarsePrecision, emptyRegisters, estimate, finePrecision, mergeFine } from './sketch';

export const hourMs = 3_600_000;
export const dayMs = 86_400_000;
/** Batch ids are remembered this long: longer than a message's retries take (./consumer.ts). */
const batchMemoryMs = dayMs;

const counterColumns = counters.map((_, i) => `c${i}`);
/** The two sizes of bucket: the row key's column, and the sketch's precision. */
export const grains = {
  hour: { table: 'hour', ms: hourMs, precision: coarsePrecision },
  day: { table: 'day', ms: dayMs, precision: finePrecision },
} as const;
export type Grain = keyof typeof grains;

export function createTables(sql: SqlStorage): void {
  for (const { table } of Object.values(grains)) {
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table}_counts (start INTEGER NOT NULL, host TEXT NOT NULL, deployment TEXT NOT NULL, ${counterColumns.map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(', ')}, PRIMARY KEY (start, host, deployment))`);
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table}_tops (start INTEGER NOT NULL, host TEXT NOT NULL, deployment TEXT NOT NULL, list INTEGER NOT NULL, value TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (start, host, deployment, list, value))`);
    // `visitors`: the registers' estimate, made as they are merged, so that a read of a month's series estimates nothing.
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table}_visitors (start INTEGER NOT NULL, host TEXT NOT NULL, registers BLOB NOT NULL, visitors INTEGER NOT NULL, PRIMARY KEY (start, host))`);
  }
  sql.exec('CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, merged INTEGER NOT NULL)');
  sql.exec('CREATE TABLE IF NOT EXISTS claim (domain TEXT NOT NULL, claim INTEGER NOT NULL)');
}

/** The site whose traffic is stored, if any. */
export function storedClaim(sql: SqlStorage): SiteKey | undefined {
  const row = sql.exec<{ domain: string; claim: number }>('SELECT domain, claim FROM claim').toArray()[0];
  return row && { domain: row.domain, claim: row.claim };
}

/** Forgets every count, and the claim they belonged to; they will be `site`'s. */
export function clearTables(sql: SqlStorage, site: SiteKey): void {
  for (const { table } of Object.values(grains)) for (const kind of ['counts', 'tops', 'visitors']) sql.exec(`DELETE FROM ${table}_${kind}`);
  sql.exec('DELETE FROM batches');
  sql.exec('DELETE FROM claim');
  sql.exec('INSERT INTO claim (domain, claim) VALUES (?, ?)', site.domain, site.claim);
}

export function wasMerged(sql: SqlStorage, batchId: string): boolean {
  return sql.exec('SELECT 1 FROM batches WHERE id = ?', batchId).toArray().length > 0;
}

/** Adds one batch's entries and visitors of this site to its hourly and daily buckets; each touched top list is cut back to `topStored`. */
export function mergeBatch(sql: SqlStorage, batchId: string, entries: readonly TallyEntry[], visitors: readonly VisitorEntry[], topStored: number, now: number): void {
  const touched = new Set<string>();
  for (const entry of entries) {
    for (const grain of Object.values(grains)) {
      const start = entry.hour - (entry.hour % grain.ms);
      addCounts(sql, grain.table, start, entry.host, entry.deployment, entry.counts);
      entry.tops.forEach((values, list) => {
        for (const [value, count] of values) addTop(sql, grain.table, start, entry.host, entry.deployment, list, value, count);
        if (entry.other[list]) addTop(sql, grain.table, start, entry.host, entry.deployment, list, '', entry.other[list]!);
        touched.add(JSON.stringify([grain.table, start, entry.host, entry.deployment, list]));
      });
    }
  }
  for (const key of touched) {
    const [table, start, host, deployment, list] = JSON.parse(key) as [string, number, string, string, number];
    capTop(sql, table, start, host, deployment, list, topStored);
  }
  for (const entry of visitors) {
    const fine = fineRegisters(entry.registers);
    for (const grain of Object.values(grains)) mergeSketch(sql, grain.table, entry.hour - (entry.hour % grain.ms), entry.host, grain.precision, fine);
  }
  sql.exec('INSERT INTO batches (id, merged) VALUES (?, ?)', batchId, now);
}

/** Forgets buckets past their retention, and batch ids past `batchMemoryMs`. */
export function forgetOld(sql: SqlStorage, now: number, hourlyRetentionDays: number, dailyRetentionDays: number): void {
  const cutoffs = { hour: now - hourlyRetentionDays * dayMs, day: now - dailyRetentionDays * dayMs };
  for (const [grain, { table }] of Object.entries(grains)) {
    for (const kind of ['counts', 'tops', 'visitors']) sql.exec(`DELETE FROM ${table}_${kind} WHERE start < ?`, cutoffs[grain as Grain]);
  }
  sql.exec('DELETE FROM batches WHERE merged < ?', now - batchMemoryMs);
}

function addCounts(sql: SqlStorage, table: string, start: number, host: HostKind, deployment: string, counts: Counts): void {
  const values = counterColumns.map((_, i) => Number(counts[i]) || 0);
  sql.exec(
    `INSERT INTO ${table}_counts (start, host, deployment, ${counterColumns.join(', ')}) VALUES (?, ?, ?, ${counterColumns.map(() => '?').join(', ')})
     ON CONFLICT (start, host, deployment) DO UPDATE SET ${counterColumns.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
    start,
    host,
    deployment,
    ...values,
  );
}

function addTop(sql: SqlStorage, table: string, start: number, host: string, deployment: string, list: number, value: string, count: number): void {
  sql.exec(
    `INSERT INTO ${table}_tops (start, host, deployment, list, value, count) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (start, host, deployment, list, value) DO UPDATE SET count = count + excluded.count`,
    start,
    host,
    deployment,
    list,
    value,
    count,
  );
}

/** Keeps the `topStored` most counted values of one list of one bucket; the rest is added to its "other". */
function capTop(sql: SqlStorage, table: string, start: number, host: string, deployment: string, list: number, topStored: number): void {
  const where = 'start = ? AND host = ? AND deployment = ? AND list = ?';
  const key = [start, host, deployment, list];
  const dropped = sql
    .exec<{ value: string; count: number }>(`SELECT value, count FROM ${table}_tops WHERE ${where} AND value != '' ORDER BY count DESC, value LIMIT -1 OFFSET ?`, ...key, topStored)
    .toArray();
  if (dropped.length === 0) return;
  sql.exec(`DELETE FROM ${table}_tops WHERE ${where} AND value IN (SELECT value FROM json_each(?))`, ...key, JSON.stringify(dropped.map((row) => row.value)));
  addTop(sql, table, start, host, deployment, list, '', dropped.reduce((sum, row) => sum + row.count, 0));
}

function mergeSketch(sql: SqlStorage, table: string, start: number, host: HostKind, precision: number, fine: readonly number[]): void {
  const stored = sql.exec<{ registers: ArrayBuffer }>(`SELECT registers FROM ${table}_visitors WHERE start = ? AND host = ?`, start, host).toArray()[0];
  const registers: Registers = stored ? new Uint8Array(stored.registers) : emptyRegisters(precision);
  mergeFine(registers, fine);
  sql.exec(
    `INSERT INTO ${table}_visitors (start, host, registers, visitors) VALUES (?, ?, ?, ?) ON CONFLICT (start, host) DO UPDATE SET registers = excluded.registers, visitors = excluded.visitors`,
    start,
    host,
    registers.buffer as ArrayBuffer,
    estimate(registers),
  );
}

/** The highest rank of a fine register: one past the 50 hash bits after its index. */
const maxFineRank = 64 - finePrecision + 1;

/** A message's registers as fine registers (`index * 64 + rank`): a list, or every register in base64. */
function fineRegisters(registers: number[] | string): number[] {
  if (Array.isArray(registers)) return registers.filter((register) => Number.isInteger(register) && register >= 0 && register >>> 6 < 1 << finePrecision && (register & 63) <= maxFineRank);
  const bytes = atob(registers);
  const fine: number[] = [];
  for (let index = 0; index < bytes.length && index < 1 << finePrecision; index++) {
    const rank = bytes.charCodeAt(index);
    if (rank > 0) fine.push(index * 64 + Math.min(rank, maxFineRank));
  }
  return fine;
}

