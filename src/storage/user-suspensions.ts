/**
 * D1 access to operators' suspensions of users (schema/migrations/0012_user_suspensions.sql).
 * A site's record carries its owner's suspension (./sites-table.ts joins this table), so serving
 * and the coordinator's access checks read it with the site, at no cost of their own.
 */
import type { Suspension } from './sites-table';

/** A user's suspension as stored: `changeId` names its events; `resumed` is set once it was lifted. */
export interface UserSuspensionRecord extends Suspension {
  changeId: string;
  resumed: number | null;
}

interface UserSuspensionRow {
  reason: string;
  suspended_at: number;
  change_id: string;
  resumed_at: number | null;
}

/** The user's latest suspension, in force or lifted; null when the user was never suspended. */
export async function getUserSuspensionRecord(db: D1Database, userId: string): Promise<UserSuspensionRecord | null> {
  const row = await db.prepare('SELECT reason, suspended_at, change_id, resumed_at FROM user_suspensions WHERE user_id = ?').bind(userId).first<UserSuspensionRow>();
  return row && { reason: row.reason, since: row.suspended_at, changeId: row.change_id, resumed: row.resumed_at };
}

/** The user's suspension in force, or null. */
export async function getUserSuspension(db: D1Database, userId: string): Promise<Suspension | null> {
  const record = await getUserSuspensionRecord(db, userId);
  return record && record.resumed === null ? { reason: record.reason, since: record.since } : null;
}

/** Stores `record` as the user's suspension, replacing any before it. */
export async function putUserSuspension(db: D1Database, userId: string, record: UserSuspensionRecord): Promise<void> {
  await db
    .prepare(
      `INSERT INTO user_suspensions (user_id, reason, suspended_at, change_id, resumed_at) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (user_id) DO UPDATE SET reason = ?2, suspended_at = ?3, change_id = ?4, resumed_at = ?5`,
    )
    .bind(userId, record.reason, record.since, record.changeId, record.resumed)
    .run();
}
