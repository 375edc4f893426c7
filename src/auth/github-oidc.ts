/**
 * Verifies a GitHub Actions job's OIDC ID token (docs/api.md, "Trusted deploys"), as GitHub
 * documents them: RS256, signed by keys its issuer's discovery document points to, with the
 * repository and workflow in claims. Keys come through `/.well-known/openid-configuration`, so a
 * local issuer (tests, a laptop) is found the same way as GitHub's.
 */
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { Problem } from '../http/problem';
import type { GithubOidcSettings } from '../platform/settings';
import { InvalidToken, issuerClockLeewaySeconds, KeysUnavailable, providerKeys } from './tokens';

/** The claims a trust policy is matched against; each is a string in GitHub's tokens. */
export interface GithubClaims {
  jti: string;
  /** Epoch seconds. */
  exp: number;
  repository: string;
  repository_id: string;
  repository_owner_id: string;
  /** `owner/repo/.github/workflows/deploy.yml@refs/heads/main`. */
  job_workflow_ref: string;
  ref?: string;
  environment?: string;
  /** The event that started the run (`push`, `pull_request_target`, …). */
  event_name?: string;
  /** What a deployment records of the job (docs/api.md, "Provenance"). */
  sha?: string;
  run_id?: string;
  run_attempt?: string;
  actor?: string;
}

const requiredClaims = ['exp', 'iat', 'jti', 'repository', 'repository_id', 'repository_owner_id', 'job_workflow_ref'] as const;
const optionalClaims = ['ref', 'environment', 'event_name', 'sha', 'run_id', 'run_attempt', 'actor'] as const;
/** Discovery documents are read again after this long: an issuer may move its keys. */
const discoveryMs = 60 * 60_000;
const discovered = new Map<string, { jwksUri: string; at: number }>();

/** 503 with Retry-After: the issuer or its keys cannot be reached; the token may well be good. */
function issuerUnavailable(issuer: string): Problem {
  return new Problem('unavailable', `The ID token's issuer ${issuer} or its signing keys cannot be reached right now; try again shortly.`, {
    headers: { 'retry-after': '30' },
  });
}

/** The issuer's `jwks_uri`, from its discovery document (cached); one that names another issuer is refused. */
async function jwksUriOf(issuer: string, now: number): Promise<string> {
  const known = discovered.get(issuer);
  if (known && now - known.at < discoveryMs) return known.jwksUri;
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new KeysUnavailable(`discovery answered ${response.status}`);
    document = await response.json();
  } catch {
    throw issuerUnavailable(issuer);
  }
  if (document.issuer !== issuer || typeof document.jwks_uri !== 'string' || !URL.canParse(document.jwks_uri)) {
    throw issuerUnavailable(issuer);
  }
  discovered.set(issuer, { jwksUri: document.jwks_uri, at: now });
  return document.jwks_uri;
}

/**
 * The claims of `token` once its signature, issuer, audience (`audience`), `exp`, `nbf` and `iat`
 * pass: InvalidToken (401) otherwise, 503 when the keys cannot be fetched.
 */
export async function verifyGithubIdToken(token: string, settings: GithubOidcSettings, audience: string, now = Date.now()): Promise<GithubClaims> {
  const jwksUri = await jwksUriOf(settings.issuer, now);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, providerKeys(jwksUri), { algorithms: ['RS256'], issuer: settings.issuer, audience, requiredClaims: [...requiredClaims] }));
  } catch (error) {
    if (error instanceof KeysUnavailable) throw issuerUnavailable(settings.issuer);
    if (error instanceof errors.JWTExpired) throw new InvalidToken('The ID token has expired.');
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.reason === 'missing') throw new InvalidToken(`The ID token has no "${error.claim}" claim.`);
      throw new InvalidToken(`The ID token's "${error.claim}" claim is not accepted${error.claim === 'aud' ? `: it must be ${JSON.stringify(audience)}` : ''}.`);
    }
    if (error instanceof errors.JOSEError) throw new InvalidToken('The ID token could not be verified: it is malformed, or not signed by the issuer.');
    throw error;
  }
  if (payload.iat! > now / 1000 + issuerClockLeewaySeconds) throw new InvalidToken('The ID token\'s "iat" claim is not accepted.');
  for (const claim of requiredClaims) {
    if (claim !== 'exp' && claim !== 'iat' && typeof payload[claim] !== 'string') throw new InvalidToken(`The ID token's "${claim}" claim is not a string.`);
  }
  for (const claim of optionalClaims) {
    if (payload[claim] !== undefined && typeof payload[claim] !== 'string') throw new InvalidToken(`The ID token's "${claim}" claim is not a string.`);
  }
  return payload as unknown as GithubClaims;
}
