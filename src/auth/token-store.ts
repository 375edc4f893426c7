/** API tokens and sign-outs in D1 (schema/migrations/0014_api_tokens.sql, 0018_credential_authority.sql). Only a token's hash is stored. */

import type { GithubJobProvenance } from '../common/api-types';
import type { Ceiling } from './authority';

export interface ApiTokenRecord {
  id: string;
  userId: string;
  name: string;
  /** Hex SHA-256 of the token. */
  hash: string;
  scopes: string[];
  /** The domains it is limited to; null: every site of its user. */
  sites: string[] | null;
  /** The most a token limited to sites is there (null: a token of every site; read as deployer for one made before roles). */
  role: Ceiling | null;
  /** A CI identity's job (`POST /v2/oidc/github`); null for a token its user made. */
  job: GithubJobProvenance | null;
  created: number;
  expires: number;
  lastUsed: number | null;
}

type TokenRow = {
  id: string;
  user_id: string;
  name: string;
  hash: string;
  scopes: string;
  sites: string | null;
  role: Ceiling | null;
  job: string | null;
  created: number;
  expires: number;
  last_used: number | null;
};

function recordOf(row: TokenRow): ApiTokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    hash: row.hash,
    scopes: row.scopes.split(' ').filter(Boolean),
    sites: row.sites === null ? null : (JSON.parse(row.sites) as string[]),
    role: row.role,
    job: row.job === null ? null : (JSON.parse(row.job) as GithubJobProvenance),
    created: row.created,
    expires: row.expires,
    lastUsed: row.last_used,
  };
}

export async function findTokenByHash(db: D1Database, hash: string): Promise<ApiTokenRecord | null> {
  const row = await db.prepare('SELECT * FROM api_tokens WHERE hash = ?').bind(hash).first<TokenRow>();
  return row && recordOf(row);
}

/** A user's unexpired tokens, newest first. */
export async function listTokensOf(db: D1Database, userId: string, now: number): Promise<ApiTokenRecord[]> {
  const { results } = await db.prepare('SELECT * FROM api_tokens WHERE user_id = ? AND expires > ? ORDER BY created DESC, id').bind(userId, now).all<TokenRow>();
  return results.map(recordOf);
}

/**
 * Stores a new token unless its user already holds `perUser` unexpired ones they made (a CI
 * identity's tokens are outside the count: the exchange limits them per site); false when refused.
 * One statement counts and inserts, so concurrent creations cannot pass the limit together; the
 * user's expired tokens are dropped first, in the same batch.
 */
export async function insertToken(db: D1Database, token: ApiTokenRecord, perUser: number, now: number): Promise<boolean> {
  const [, inserted] = await db.batch([
    db.prepare('DELETE FROM api_tokens WHERE user_id = ? AND expires <= ?').bind(token.userId, now),
    db
      .prepare(
        `INSERT INTO api_tokens (id, user_id, name, hash, scopes, sites, role, job, created, expires, last_used)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL WHERE (SELECT COUNT(*) FROM api_tokens WHERE user_id = ? AND job IS NULL) < ?`,
      )
      .bind(
        token.id,
        token.userId,
        token.name,
        token.hash,
        token.scopes.join(' '),
        token.sites && JSON.stringify(token.sites),
        token.role,
        token.job && JSON.stringify(token.job),
        token.created,
        token.expires,
        token.userId,
        perUser,
      ),
  ]);
  return (inserted?.meta.changes ?? 0) > 0;
}

/** Deletes the user's token `id`; the deleted record, or null when the user has no such token. */
export async function deleteToken(db: D1Database, userId: string, id: string): Promise<ApiTokenRecord | null> {
  const row = await db.prepare('DELETE FROM api_tokens WHERE user_id = ? AND id = ? RETURNING *').bind(userId, id).first<TokenRow>();
  return row && recordOf(row);
}

/**
 * Sign-out everywhere: every token of the user is deleted, and every JWT of theirs issued before
 * `beforeSeconds` is refused from now on (a later sign-out only moves the line forward).
 */
export async function signOutEverywhere(db: D1Database, userId: string, beforeSeconds: number): Promise<ApiTokenRecord[]> {
  const [, deleted] = await db.batch<TokenRow>([
    db
      .prepare('INSERT INTO sign_outs (user_id, before) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET before = MAX(before, excluded.before)')
      .bind(userId, beforeSeconds),
    db.prepare('DELETE FROM api_tokens WHERE user_id = ? RETURNING *').bind(userId),
  ]);
  return (deleted?.results ?? []).map(recordOf);
}

/** The user's sign-out line (epoch seconds): JWTs issued before it are refused. Null: never signed out. */
export async function signedOutBefore(db: D1Database, userId: string): Promise<number | null> {
  const row = await db.prepare('SELECT before FROM sign_outs WHERE user_id = ?').bind(userId).first<{ before: number }>();
  return row?.before ?? null;
}

/** Records a use of token `id` at `now`, unless one at or after `unlessSince` is recorded. */
export async function recordTokenUse(db: D1Database, id: string, now: number, unlessSince: number): Promise<void> {
  await db.prepare('UPDATE api_tokens SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)').bind(now, id, unlessSince).run();
}

/** Deletes every expired token (the daily cron): an exchanged token lives minutes, and no later creation of its user's may come to drop it. */
export async function sweepExpiredTokens(db: D1Database, now: number): Promise<number> {
  const { meta } = await db.prepare('DELETE FROM api_tokens WHERE expires <= ?').bind(now).run();
  return meta.changes ?? 0;
}
