/** D1 access to sites' GitHub Actions trust policies and the ID tokens already exchanged (schema/migrations/0015_members_and_trust.sql). */

import type { GithubTrustPolicy } from '../common/api-types';

/** Which GitHub Actions jobs may deploy a site (docs/api.md, "Trusted deploys"); `ref` and `environment` null: any. */
export type GithubTrust = Omit<GithubTrustPolicy, 'domain' | 'modified'>;

export interface StoredTrust extends GithubTrust {
  domain: string;
  modified: number;
}

type TrustRow = { domain: string; repository: string; repository_id: string; repository_owner_id: string; workflow: string; ref: string | null; environment: string | null; modified: number };

function trustOf(row: TrustRow): StoredTrust {
  return {
    domain: row.domain,
    repository: row.repository,
    repositoryId: row.repository_id,
    repositoryOwnerId: row.repository_owner_id,
    workflow: row.workflow,
    ref: row.ref,
    environment: row.environment,
    modified: row.modified,
  };
}

export async function getTrust(db: D1Database, domain: string): Promise<StoredTrust | null> {
  const row = await db.prepare('SELECT * FROM site_trust_github WHERE domain = ?').bind(domain).first<TrustRow>();
  return row && trustOf(row);
}

/** The policies that name the repository `repositoryId`, at most `limit`. */
export async function trustsOfRepository(db: D1Database, repositoryId: string, limit: number): Promise<StoredTrust[]> {
  const { results } = await db.prepare('SELECT * FROM site_trust_github WHERE repository_id = ? ORDER BY domain LIMIT ?').bind(repositoryId, limit).all<TrustRow>();
  return results.map(trustOf);
}

export function putTrust(db: D1Database, trust: StoredTrust): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO site_trust_github (domain, repository, repository_id, repository_owner_id, workflow, ref, environment, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET repository = excluded.repository, repository_id = excluded.repository_id, repository_owner_id = excluded.repository_owner_id,
         workflow = excluded.workflow, ref = excluded.ref, environment = excluded.environment, modified = excluded.modified`,
    )
    .bind(trust.domain, trust.repository, trust.repositoryId, trust.repositoryOwnerId, trust.workflow, trust.ref, trust.environment, trust.modified);
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
