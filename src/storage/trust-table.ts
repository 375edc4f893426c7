/** D1 access to sites' GitHub Actions trust policies and the ID tokens already exchanged (schema/migrations/0015_members_and_trust.sql). */

import type { GithubTrustPolicy } from '../common/api-types';

/** Which GitHub Actions jobs may deploy a site (docs/api.md, "Trusted deploys"); `ref` and `environment` null: any. */
export type GithubTrust = Omit<GithubTrustPolicy, 'domain' | 'modified'>;

export interface StoredTrust extends GithubTrust {
  domain: string;
  modified: number;
}

export type TrustRow = {
  domain: string;
  repository: string;
  repository_id: string;
  repository_owner_id: string;
  workflow: string;
  ref: string | null;
  environment: string | null;
  event_name: string | null;
  modified: number;
};

export function trustOf(row: TrustRow): StoredTrust {
  return {
    domain: row.domain,
    repository: row.repository,
    repositoryId: row.repository_id,
    repositoryOwnerId: row.repository_owner_id,
    workflow: row.workflow,
    ref: row.ref,
    environment: row.environment,
    eventName: row.event_name,
    modified: row.modified,
  };
}

export async function getTrust(db: D1Database, domain: string): Promise<StoredTrust | null> {
  const row = await db.prepare('SELECT * FROM site_trust_github WHERE domain = ?').bind(domain).first<TrustRow>();
  return row && trustOf(row);
}

/** A policy and the user who owns its site, as one statement read them. */
export interface OwnedTrust extends StoredTrust {
  owner: string;
}

/**
 * The policies an exchange may match, each with its site's owner, in one statement (so that no
 * claim between two reads pairs a policy with a new owner): `domain`'s alone when the exchange
 * names it, else those naming the repository `repositoryId`, at most `limit`.
 */
export async function trustsWithOwners(db: D1Database, where: { domain: string } | { repositoryId: string }, limit: number): Promise<OwnedTrust[]> {
  const [column, value] = 'domain' in where ? ['t.domain', where.domain] : ['t.repository_id', where.repositoryId];
  const { results } = await db
    .prepare(`SELECT t.*, s.user_id AS owner FROM site_trust_github t JOIN sites s ON s.domain = t.domain WHERE ${column} = ? ORDER BY t.domain LIMIT ?`)
    .bind(value, limit)
    .all<TrustRow & { owner: string }>();
  return results.map((row) => ({ ...trustOf(row), owner: row.owner }));
}

export function putTrust(db: D1Database, trust: StoredTrust): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO site_trust_github (domain, repository, repository_id, repository_owner_id, workflow, ref, environment, event_name, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET repository = excluded.repository, repository_id = excluded.repository_id, repository_owner_id = excluded.repository_owner_id,
         workflow = excluded.workflow, ref = excluded.ref, environment = excluded.environment, event_name = excluded.event_name, modified = excluded.modified`,
    )
    .bind(trust.domain, trust.repository, trust.repositoryId, trust.repositoryOwnerId, trust.workflow, trust.ref, trust.environment, trust.eventName, trust.modified);
}

export function deleteTrustOf(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM site_trust_github WHERE domain = ?').bind(domain);
}

/**
 * Records the ID token `jti` as exchanged until `expires`; false when it was already (a replay).
 * Expired ones are dropped in the same batch, so the table holds only tokens still valid.
 */
export async function recordExchange(db: D1Database, jti: string, expires: number, now: number): Promise<boolean> {
  const [, inserted] = await db.batch([
    db.prepare('DELETE FROM oidc_seen_tokens WHERE expires <= ?').bind(now),
    db.prepare('INSERT INTO oidc_seen_tokens (jti, expires) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING').bind(jti, expires),
  ]);
  return (inserted?.meta.changes ?? 0) > 0;
}

const hourMs = 3_600_000;

/**
 * Counts an exchange for each of `domains` in the clock hour of `now`, unless one of them has had
 * `perHour` already: the first such domain (nothing counted for it), or null when all were counted.
 */
export async function countExchange(db: D1Database, domains: readonly string[], perHour: number, now: number): Promise<string | null> {
  const hour = Math.floor(now / hourMs);
  const counted = await db.batch(
    domains.map((domain) =>
      db
        .prepare('INSERT INTO oidc_exchange_counts (domain, hour, count) VALUES (?, ?, 1) ON CONFLICT (domain, hour) DO UPDATE SET count = count + 1 WHERE count < ?')
        .bind(domain, hour, perHour),
    ),
  );
  const full = counted.findIndex((result) => (result.meta.changes ?? 0) === 0);
  return full < 0 ? null : domains[full]!;
}

/** Forgets the exchange counts of hours before `now`'s and the replays' ledger past expiry (the daily cron). */
export async function sweepExchanges(db: D1Database, now: number): Promise<void> {
  await db.batch([
    db.prepare('DELETE FROM oidc_exchange_counts WHERE hour < ?').bind(Math.floor(now / hourMs)),
    db.prepare('DELETE FROM oidc_seen_tokens WHERE expires <= ?').bind(now),
  ]);
}
