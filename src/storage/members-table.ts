/** D1 access to a site's members (schema/migrations/0015_members_and_trust.sql). Times are epoch milliseconds. */
import { type ClaimedSite, type SiteOwnerRow, type Suspension, siteOwnerColumns, siteOwnerFrom, siteOwnerOf } from './sites-table';

/** A member's role: what src/coordinator/access/access.ts allows it. */
export type StoredRole = 'deployer' | 'viewer';

export interface MemberRecord {
  userId: string;
  role: StoredRole;
  added: number;
}

/** The role `userId` holds on `domain`; null when not a member. */
export async function memberRole(db: D1Database, domain: string, userId: string): Promise<StoredRole | null> {
  const row = await db.prepare('SELECT role FROM site_members WHERE domain = ? AND user_id = ?').bind(domain, userId).first<{ role: StoredRole }>();
  return row?.role ?? null;
}

/**
 * The role `userId` holds on `domain` (null: not a member) and, for a member, their own suspension
 * in force (null: none), in one query: a suspended member changes nothing (src/coordinator/commit/site-state.ts).
 */
export async function memberAccess(db: D1Database, domain: string, userId: string): Promise<{ role: StoredRole | null; suspension: Suspension | null }> {
  const row = await db
    .prepare(
      `SELECT m.role, u.reason, u.suspended_at FROM site_members m
       LEFT JOIN user_suspensions u ON u.user_id = m.user_id AND u.resumed_at IS NULL
       WHERE m.domain = ? AND m.user_id = ?`,
    )
    .bind(domain, userId)
    .first<{ role: StoredRole; reason: string | null; suspended_at: number | null }>();
  if (!row) return { role: null, suspension: null };
  return { role: row.role, suspension: row.reason === null ? null : { reason: row.reason, since: row.suspended_at! } };
}

/**
 * Who owns `domain` (null: no site), the role `userId` holds on it and `userId`'s own suspension
 * in force (null: none, or no site), in one query: what the Worker checks a change against before
 * it reads a body (src/coordinator/access/access.ts).
 */
export async function siteAccess(db: D1Database, domain: string, userId: string): Promise<{ site: ClaimedSite | null; member: StoredRole | null; suspension: Suspension | null }> {
  const row = await db
    .prepare(
      `SELECT ${siteOwnerColumns}, m.role, me.reason AS my_reason, me.suspended_at AS my_since FROM ${siteOwnerFrom}
       LEFT JOIN site_members m ON m.domain = sites.domain AND m.user_id = ?1
       LEFT JOIN user_suspensions me ON me.user_id = ?1 AND me.resumed_at IS NULL
       WHERE sites.domain = ?2`,
    )
    .bind(userId, domain)
    .first<SiteOwnerRow & { role: StoredRole | null; my_reason: string | null; my_since: number | null }>();
  if (!row) return { site: null, member: null, suspension: null };
  return { site: siteOwnerOf(row), member: row.role, suspension: row.my_reason === null ? null : { reason: row.my_reason, since: row.my_since! } };
}

/** The members of `domain`, by user id. */
export async function membersOf(db: D1Database, domain: string): Promise<MemberRecord[]> {
  const { results } = await db
    .prepare('SELECT user_id AS userId, role, added FROM site_members WHERE domain = ? ORDER BY user_id')
    .bind(domain)
    .all<MemberRecord>();
  return results;
}

/** Adds `userId` to `domain`, or changes its role (keeping when it was added). */
export function putMember(db: D1Database, domain: string, member: MemberRecord): D1PreparedStatement {
  return db
    .prepare('INSERT INTO site_members (domain, user_id, role, added) VALUES (?, ?, ?, ?) ON CONFLICT (domain, user_id) DO UPDATE SET role = excluded.role')
    .bind(domain, member.userId, member.role, member.added);
}

export function deleteMember(db: D1Database, domain: string, userId: string): D1PreparedStatement {
  return db.prepare('DELETE FROM site_members WHERE domain = ? AND user_id = ?').bind(domain, userId);
}

/** An unpublished site keeps no members: whoever claims the domain next starts alone. */
export function deleteMembersOf(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM site_members WHERE domain = ?').bind(domain);
}

/** A site in a user's list: one they own (`role` owner) or one they are a member of. */
export interface ReachableSite {
  domain: string;
  userId: string;
  modified: number;
  role: 'owner' | StoredRole;
}

/** The sites `userId` owns or is a member of, in domain order, after `after`, at most `limit` (all without). */
export async function listReachableSites(db: D1Database, userId: string, after = '', limit?: number): Promise<ReachableSite[]> {
  const { results } = await db
    .prepare(
      `SELECT domain, user_id AS userId, modified, 'owner' AS role FROM sites WHERE user_id = ?1 AND domain > ?2
       UNION ALL
       SELECT s.domain, s.user_id, s.modified, m.role FROM site_members m JOIN sites s ON s.domain = m.domain WHERE m.user_id = ?1 AND m.domain > ?2
       ORDER BY domain LIMIT ?3`,
    )
    // SQLite reads a negative LIMIT as none.
    .bind(userId, after, limit ?? -1)
    .all<ReachableSite>();
  return results;
}
