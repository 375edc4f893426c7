/**
 * Verifies a GitHub Actions job's OIDC ID token (docs/api.md, "Trusted deploys"), as GitHub
 * documents them: RS256, signed by keys its issuer's discovery document points to, with the
 * repository and workflow in claims. Keys come through `/.well-known/openid-configuration`
 * (./issuer-keys.ts), so a local issuer (tests, a laptop) is found the same way as GitHub's.
 */
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { Problem } from '../http/problem';
import type { GithubOidcSettings } from '../platform/settings';
import { issuerKeys } from './issuer-keys';
import { InvalidToken, issuerClockLeewaySeconds, KeysUnavailable } from './tokens';

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
/** 503 with Retry-After: the issuer or its keys cannot be reached; the token may well be good. */
function issuerUnavailable({ issuer, issuerRetrySeconds }: GithubOidcSettings): Problem {
  return new Problem('unavailable', `The ID token's issuer ${issuer} or its signing keys cannot be reached right now; try again shortly.`, {
    headers: { 'retry-after': String(Math.max(1, issuerRetrySeconds)) },
  });
}

/**
 * The claims of `token` once its signature, issuer, audience (`audience`), `exp`, `nbf` and `iat`
 * pass: InvalidToken (401) otherwise, 503 when the keys cannot be fetched.
 */
export async function verifyGithubIdToken(token: string, settings: GithubOidcSettings, audience: string, now = Date.now()): Promise<GithubClaims> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, issuerKeys(settings.issuer, now, settings.issuerRetrySeconds * 1000), { algorithms: ['RS256'], issuer: settings.issuer, audience, requiredClaims: [...requiredClaims] }));
  } catch (error) {
    if (error instanceof KeysUnavailable) throw issuerUnavailable(settings);
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
