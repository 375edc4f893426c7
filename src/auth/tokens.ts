import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { DeploymentProvenance, GithubJobProvenance } from '../common/api-types';
import type { Env } from '../platform/env';
import type { Ceiling, CredentialKind } from './authority';
import { Problem } from '../http/problem';

/** Who is calling and what they may do. */
export interface Principal {
  /** The token's `sub`, e.g. `github|12345`. */
  userId: string;
  scopes: ReadonlySet<string>;
  /** The token's `iss`: this service's TOKEN_ISSUER, or the identity provider. */
  issuer: string;
  /** When the token expires (its `exp`), epoch milliseconds. */
  expiresAt: number;
  /** When it was issued (a JWT's `iat`, an API token's creation), epoch milliseconds; null when a JWT has no `iat`. */
  issuedAt: number | null;
  /**
   * The domains the credential is limited to (an API token made with `sites`): it reaches no other
   * site and nothing beyond one site (src/auth/middleware.ts). Null: every site its user may reach.
   */
  sites: ReadonlySet<string> | null;
  /** The API token's id (src/auth/api-tokens.ts); null for a JWT. */
  tokenId: string | null;
  /** The API token's name; null for a JWT. */
  tokenName: string | null;
  /** What kind of credential it is, and the most it may be on a site (./authority.ts). */
  credential: CredentialKind;
  ceiling: Ceiling;
  /** A CI identity's job, from the ID token it was exchanged for (null for any other credential). */
  job: GithubJobProvenance | null;
}

/** With what credential `principal` makes a deployment: recorded on it, as the service verified it. */
export function provenanceOf(principal: Principal): DeploymentProvenance {
  if (principal.tokenId === null) return { credential: 'jwt' };
  if (principal.job) return { credential: 'github-actions', tokenId: principal.tokenId, ...principal.job };
  return { credential: 'api-token', tokenId: principal.tokenId, tokenName: principal.tokenName ?? '' };
}

/** Why a bearer token was refused; the message is safe to show the caller. */
export class InvalidToken extends Error {
  override name = 'InvalidToken';
}

const providerAlgorithms = ['RS256', 'ES256', 'EdDSA'];
/** A token without an expiry would be valid forever: every token must say when it ends. */
const requiredClaims = ['exp'];
const jwksByUrl = new Map<string, JWTVerifyGetKey>();

/** The provider's key set could not be fetched: the service's trouble, not the token's. */
export class KeysUnavailable extends Error {
  override name = 'KeysUnavailable';
}

/** The key set at `url`, fetched and cached by jose; a failed fetch throws KeysUnavailable. */
export function providerKeys(url: string): JWTVerifyGetKey {
  let keys = jwksByUrl.get(url);
  if (!keys) {
    const remote = createRemoteJWKSet(new URL(url));
    keys = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        // jose's own errors are about the token (unknown kid, bad key); anything else is the fetch.
        if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) throw error;
        throw new KeysUnavailable(String(error));
      }
    };
    jwksByUrl.set(url, keys);
  }
  return keys;
}

/** How far ahead of ours an issuer's clock may be: a token it just issued is not refused for its `iat`. */
export const issuerClockLeewaySeconds = 60;

/**
 * Verifies a bearer JWT against the configured signers: the shared `AUTH_SECRET` (HS256,
 * self-issued) and/or the identity provider's JWKS. Any other algorithm, `none` included,
 * is refused before a key is looked at.
 */
export async function verifyToken(token: string, env: Env): Promise<Principal> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw new InvalidToken('The token is not a JWT.');
  }
  let payload: JWTPayload;
  try {
    if (alg === 'HS256' && env.AUTH_SECRET) {
      ({ payload } = await jwtVerify(token, new TextEncoder().encode(env.AUTH_SECRET), {
        algorithms: ['HS256'],
        issuer: env.TOKEN_ISSUER,
        audience: env.AUTH_AUDIENCE,
        requiredClaims,
      }));
    } else if (alg && providerAlgorithms.includes(alg) && env.AUTH_JWKS_URL && env.AUTH_ISSUER) {
      ({ payload } = await jwtVerify(token, providerKeys(env.AUTH_JWKS_URL), {
        algorithms: providerAlgorithms,
        issuer: env.AUTH_ISSUER,
        audience: env.AUTH_AUDIENCE,
        requiredClaims,
      }));
    } else {
      throw new InvalidToken(`Tokens signed with "${alg}" are not accepted.`);
    }
  } catch (error) {
    if (error instanceof InvalidToken) throw error;
    if (error instanceof KeysUnavailable) {
      throw new Problem('unavailable', "The identity provider's signing keys cannot be fetched right now.", {
        headers: { 'retry-after': '30' },
      });
    }
    if (error instanceof errors.JWTExpired) throw new InvalidToken('The token has expired.');
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.reason === 'missing') throw new InvalidToken(`The token has no "${error.claim}" claim.`);
      throw new InvalidToken(`The token's "${error.claim}" claim is not accepted.`);
    }
    if (error instanceof errors.JOSEError) throw new InvalidToken('The token could not be verified.');
    throw error;
  }
  // jose checks `iat` only against a maximum age, which tokens here do not have: one issued in
  // the future is refused as one not yet valid (`nbf`) is, but for an issuer's clock a little ahead.
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + issuerClockLeewaySeconds) {
    throw new InvalidToken(`The token's "iat" claim is not accepted.`);
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    throw new InvalidToken('The token has no subject.');
  }
  // Both verified: `iss` against the signer's issuer, `exp` required.
  return {
    userId: payload.sub,
    scopes: scopesOf(payload),
    issuer: payload.iss!,
    expiresAt: payload.exp! * 1000,
    issuedAt: typeof payload.iat === 'number' ? payload.iat * 1000 : null,
    sites: null,
    tokenId: null,
    tokenName: null,
    credential: 'user',
    ceiling: 'owner',
    job: null,
  };
}

/** Scopes from `scope` (space-separated, OAuth 2) or a `permissions`/`scp` array (Auth0, Azure). */
function scopesOf(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === 'string') {
    for (const scope of payload.scope.split(' ')) if (scope) scopes.add(scope);
  }
  for (const claim of ['permissions', 'scp']) {
    const value = payload[claim];
    const listed: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(' ') : [];
    for (const scope of listed) if (typeof scope === 'string' && scope) scopes.add(scope);
  }
  return scopes;
}
