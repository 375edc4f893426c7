/**
 * Service-issued API tokens (docs/api.md, "Tokens"): how a bearer token of ours is verified, how
 * sign-out everywhere stops a user's earlier JWTs, and what a new token may hold.
 */
import { Problem } from '../http/problem';
import { type Ceiling, type CredentialKind, ceilingOf } from './authority';
import { settingsOf } from '../platform/settings';
import { type CheckContext, BoundedMap, checkedAtLocation, forgetAtLocation } from './location-checks';
import { hasValidChecksum, sameHash, sha256Hex } from './token-format';
import { type ApiTokenRecord, findTokenByHash, recordTokenUse, signedOutBefore } from './token-store';
import { InvalidToken, type Principal } from './tokens';

/** Every scope a token can hold (docs/api.md, "Scopes"). */
export const knownScopes = ['deploy', 'read', 'global_read', 'admin'] as const;
export type Scope = (typeof knownScopes)[number];

/**
 * What reads a site: `read` (the sites one owns or is a member of, nothing more), `deploy` (which
 * reads those too), or `global_read` (any site). The route's access rule decides which sites.
 */
export const siteReadScopes: readonly Scope[] = ['global_read', 'deploy', 'read'];

/** Whether `caller` holds `scope`, or more: `deploy` holds `read`, the read half of what it does. */
function holdsScope(caller: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return caller.scopes.has(scope) || (scope === 'read' && caller.scopes.has('deploy'));
}

/** `lastUsedAt` is written on first use, then at most this often per token and isolate. */
const lastUsedIntervalMs = 5 * 60_000;
/** When each isolate last wrote a token's use: no write per request. */
const usesRecorded = new BoundedMap<number>(10_000);

/**
 * Hashes no token has, and when D1 said so: a forged token (a valid checksum is cheap to make) is
 * looked up once per isolate and API_TOKEN_CHECK_SECONDS, and takes no place among the checks of
 * real tokens nor in the location's shared cache. Bounded: a stream of forgeries only turns it over.
 */
const unknownHashes = new BoundedMap<number>(10_000);

const tokenKey = (hash: string) => `token/${hash}`;
const signOutKey = (userId: string) => `sign-out/${userId}`;

const unknownToken = () => new InvalidToken('The token was revoked, or never existed.');

/** The caller of an API token, once its checksum, its record (checked at the location) and its expiry pass. */
export async function verifyApiToken(token: string, context: CheckContext): Promise<Principal> {
  if (!hasValidChecksum(token)) throw new InvalidToken('The token is mistyped or not one this service issued: its checksum does not match.');
  const hash = await sha256Hex(token);
  const unknownSince = unknownHashes.get(hash);
  const trustMs = settingsOf(context.env).apiTokens.checkSeconds * 1000;
  if (unknownSince !== undefined && context.now - unknownSince < trustMs) throw unknownToken();
  const record = await checkedAtLocation(context, tokenKey(hash), () => findTokenByHash(context.env.DB, hash), (found) => found !== null);
  if (!record) unknownHashes.set(hash, context.now);
  if (!record || !sameHash(record.hash, hash)) throw unknownToken();
  if (record.expires <= context.now) throw new InvalidToken('The token has expired.');
  noteUse(record, context);
  const credential: CredentialKind = record.job ? 'ci' : record.sites ? 'site-token' : 'user';
  return {
    userId: record.userId,
    scopes: new Set(record.scopes),
    issuer: context.env.TOKEN_ISSUER,
    expiresAt: record.expires,
    issuedAt: record.created,
    sites: record.sites && new Set(record.sites),
    tokenId: record.id,
    tokenName: record.name,
    credential,
    ceiling: ceilingOf(credential, record.role),
    job: record.job,
  };
}

/** Writes `lastUsedAt` after the answer, on first use and then at most every `lastUsedIntervalMs`. */
function noteUse(record: ApiTokenRecord, { env, waitUntil, now }: CheckContext): void {
  const last = Math.max(record.lastUsed ?? -Infinity, usesRecorded.get(record.id) ?? -Infinity);
  if (now - last < lastUsedIntervalMs) return;
  usesRecorded.set(record.id, now);
  waitUntil(recordTokenUse(env.DB, record.id, now, now - lastUsedIntervalMs));
}

/** Refuses a JWT issued before its user signed out everywhere (its `iat`; one without `iat` too). */
export async function refuseSignedOut(principal: Principal, context: CheckContext): Promise<Principal> {
  const before = await checkedAtLocation(context, signOutKey(principal.userId), () => signedOutBefore(context.env.DB, principal.userId));
  if (before !== null && (principal.issuedAt === null || principal.issuedAt < before * 1000)) {
    throw new InvalidToken('The token was issued before its user signed out everywhere; sign in again.');
  }
  return principal;
}

/** A revocation's own location refuses the revoked at once; the others within API_TOKEN_CHECK_SECONDS. */
export async function forgetRevoked(env: CheckContext['env'], hashes: readonly string[], signedOutUser?: string): Promise<void> {
  const keys = hashes.map(tokenKey);
  if (signedOutUser !== undefined) keys.push(signOutKey(signedOutUser));
  await Promise.all(keys.map((key) => forgetAtLocation(env, key)));
}

/** What a new token asks for, read from the request. */
export interface TokenRequest {
  name: string;
  scopes: Scope[];
  sites: string[] | null;
  /** The most it is on its sites (null without `sites`). */
  role: Ceiling | null;
  expires: number;
}

/**
 * A token never makes a token with more than it holds: each scope asked for must be the caller's
 * (or within one of theirs: `read` within `deploy`), and an API token's expiry bounds the new
 * one's. (A site-restricted token makes none: the route refuses it, so the new token's sites are
 * checked by the route against all the caller reaches: src/api/token-sites.ts.)
 */
export function boundByCaller(caller: Principal, request: TokenRequest): void {
  const missing = request.scopes.filter((scope) => !holdsScope(caller, scope));
  if (missing.length > 0) {
    throw new Problem('insufficient-scope', `A token cannot grant what the caller does not hold: ${missing.map((scope) => `"${scope}"`).join(', ')}.`, {
      errors: [{ pointer: '/scopes', message: `not held by the caller: ${missing.join(', ')}` }],
    });
  }
  if (request.role === 'owner' && caller.ceiling !== 'owner') {
    throw new Problem('forbidden', 'A token cannot grant what the caller does not hold: this credential acts as a deployer at most, so it makes no token of role "owner".', {
      errors: [{ pointer: '/role', message: 'beyond the caller: a deployer at most' }],
    });
  }
  if (caller.tokenId !== null && request.expires > caller.expiresAt) {
    throw new Problem('invalid-request', `A token cannot outlive the API token that makes it, which expires at ${new Date(caller.expiresAt).toISOString()}.`, {
      errors: [{ pointer: '/expiresAt', message: 'after the expiry of the token making it' }],
    });
  }
}
