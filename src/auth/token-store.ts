/** API tokens and sign-outs in D1 (schema/migrations/0014_api_tokens.sql, 0019_credential_authority.sql). Only a token's hash is stored. */

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
  /** The API token that made it; null when a JWT (or the GitHub exchange) did. */
  parentId: string | null;
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
  parent_id: string | null;
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
    parentId: row.parent_id,
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

/** A credential as D1 can re-check it: an API token's id, or a JWT's user and `iat` (epoch ms; null: none). */
export interface Credential {
  userId: string;
  tokenId: string | null;
  issuedAt: number | null;
}

/** A condition in SQL and the values of its parameters. */
interface Condition {
  sql: string;
  values: unknown[];
}

/** True while `credential` is valid at `now`, as src/auth/api-tokens.ts verifies it, but from D1 itself. */
function credentialHolds(credential: Credential, now: number): Condition {
  const { userId, tokenId, issuedAt } = credential;
  return tokenId !== null
    ? { sql: 'EXISTS (SELECT 1 FROM api_tokens WHERE id = ? AND user_id = ? AND expires > ?)', values: [tokenId, userId, now] }
    : { sql: 'NOT EXISTS (SELECT 1 FROM sign_outs WHERE user_id = ? AND (? IS NULL OR ? < before * 1000))', values: [userId, issuedAt, issuedAt] };
}

function notSuspended(userId: string): Condition {
  return { sql: 'NOT EXISTS (SELECT 1 FROM user_suspensions WHERE user_id = ? AND resumed_at IS NULL)', values: [userId] };
}

/** A credential's standing in D1 at this instant: whether it still holds, and its user's suspension in force. */
export interface Standing {
  holds: boolean;
  suspension: { reason: string; since: number } | null;
}

/** `credential`'s standing read from D1 now, in one query: what no location's memory may answer. */
export async function standingOf(db: D1Database, credential: Credential, now: number): Promise<Standing> {
  const holds = credentialHolds(credential, now);
  const row = await db
    .prepare(
      `SELECT ${holds.sql} AS holds, suspension.reason AS reason, suspension.suspended_at AS since
       FROM (SELECT 1) LEFT JOIN user_suspensions AS suspension ON suspension.user_id = ? AND suspension.resumed_at IS NULL`,
    )
    .bind(...holds.values, credential.userId)
    .first<{ holds: number; reason: string | null; since: number | null }>();
  const since = row?.since ?? null;
  return { holds: Boolean(row?.holds), suspension: since === null ? null : { reason: row?.reason ?? '', since } };
}

/**
 * Stores a new token unless its user already holds `perUser` unexpired ones they made (a CI
 * identity's tokens are outside the count: the exchange limits them per site); when refused, why:
 * `quota`, or the maker's standing. One statement counts and inserts, so concurrent creations
 * cannot pass the limit together; the user's expired tokens are dropped first, in the same batch.
 * With the credential that makes it (`maker`, whose token id is the new token's `parentId`), the
 * same statement inserts only while that credential still holds and its user is not suspended, as
 * D1 has them at that instant: a credential revoked a moment ago, at whatever location, makes nothing.
 */
export async function insertToken(db: D1Database, token: ApiTokenRecord, perUser: number, now: number, maker?: Credential): Promise<'quota' | Standing | null> {
  const conditions: Condition[] = [
    { sql: '(SELECT COUNT(*) FROM api_tokens WHERE user_id = ? AND job IS NULL) < ?', values: [token.userId, perUser] },
    ...(maker ? [credentialHolds(maker, now), notSuspended(maker.userId)] : []),
  ];
  const [, inserted] = await db.batch([
    db.prepare('DELETE FROM api_tokens WHERE user_id = ? AND expires <= ?').bind(token.userId, now),
    db
      .prepare(
        `INSERT INTO api_tokens (id, user_id, name, hash, scopes, sites, role, job, created, expires, last_used, parent_id)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ? WHERE ${conditions.map((condition) => condition.sql).join(' AND ')}`,
      )
      .bind(
        ...[
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
          token.parentId,
        ],
        ...conditions.flatMap((condition) => condition.values),
      ),
  ]);
  if ((inserted?.meta.changes ?? 0) > 0) return null;
  if (!maker) return 'quota';
  // Refused: which condition failed, read after the fact only to name it.
  const standing = await standingOf(db, maker, now);
  return standing.holds && !standing.suspension ? 'quota' : standing;
}

/**
 * Deletes the user's token `id` and every token it made, theirs too, in one statement; the
 * deleted records, `id`'s first, or none when the user has no such token.
 */
export async function deleteToken(db: D1Database, userId: string, id: string): Promise<ApiTokenRecord[]> {
  const { results } = await db
    .prepare(
      `WITH RECURSIVE made (id) AS (
         SELECT id FROM api_tokens WHERE user_id = ?1 AND id = ?2
         UNION SELECT api_tokens.id FROM api_tokens JOIN made ON api_tokens.parent_id = made.id
       )
       DELETE FROM api_tokens WHERE user_id = ?1 AND id IN (SELECT id FROM made) RETURNING *`,
    )
    .bind(userId, id)
    .all<TokenRow>();
  return results.map(recordOf).sort((a, b) => Number(b.id === id) - Number(a.id === id));
}

/** Whether token `id` still exists, unexpired, as D1 holds it now: no location's memory asked. */
export async function tokenHolds(db: D1Database, id: string, now: number): Promise<boolean> {
  return (await db.prepare('SELECT 1 FROM api_tokens WHERE id = ? AND expires > ?').bind(id, now).first()) !== null;
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
