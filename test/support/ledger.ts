import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { coordinatorOf } from './deployments';

/** An object as a ledger records it: its key, the user it counts against, its size. */
export interface LedgerRow {
  key: string;
  userId: string;
  bytes: number;
}

/** The objects `domain`'s coordinator records (src/coordinator/records/object-ledger.ts), by key. */
export async function coordinatorLedger(domain: string): Promise<LedgerRow[]> {
  return runInDurableObject(coordinatorOf(domain), (_, state) =>
    [...state.storage.sql.exec<{ key: string; user_id: string; bytes: number }>('SELECT key, user_id, bytes FROM ledger ORDER BY key')].map((row) => ({ key: row.key, userId: row.user_id, bytes: row.bytes })),
  );
}

/** D1's byte totals of `domain`, by user. */
export async function d1Totals(domain: string): Promise<Map<string, number>> {
  const { results } = await env.DB.prepare('SELECT user_id, bytes FROM stored_bytes WHERE domain = ? ORDER BY user_id').bind(domain).all<{ user_id: string; bytes: number }>();
  return new Map(results.map((row) => [row.user_id, row.bytes]));
}

/** The rows D1's `stored_objects` holds for `domain` (one per object, as before the ledger moved), by key. */
export async function legacyRows(domain: string): Promise<LedgerRow[]> {
  const { results } = await env.DB.prepare('SELECT key, user_id AS userId, bytes FROM stored_objects WHERE domain = ? ORDER BY key').bind(domain).all<LedgerRow>();
  return results;
}

/** Each user's sum of `rows`. */
export function sumsByUser(rows: readonly LedgerRow[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const row of [...rows].sort((a, b) => a.userId.localeCompare(b.userId))) sums.set(row.userId, (sums.get(row.userId) ?? 0) + row.bytes);
  return sums;
}
