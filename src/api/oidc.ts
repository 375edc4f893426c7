/**
 * `POST /v2/oidc/github`: a GitHub Actions job trades its OIDC ID token for a short-lived API
 * token of the sites whose trust policy it matches (docs/api.md, "Trusted deploys"), so that a
 * workflow deploys with no stored secret. No Authorization header: the ID token is the credential.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { type GithubClaims, verifyGithubIdToken } from '../auth/github-oidc';
import { claimOrder, mismatchedClaim } from '../auth/github-trust';
import { newToken, newTokenId, sha256Hex } from '../auth/token-format';
import { type ApiTokenRecord, insertToken } from '../auth/token-store';
import { InvalidToken } from '../auth/tokens';
import type { OidcExchange } from '../common/api-types';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { settingsOf } from '../platform/settings';
import { getSiteOwner } from '../storage/sites-table';
import { type StoredTrust, recordExchange, trustsOfRepository } from '../storage/trust-table';
import { announce, view } from './tokens';

export const oidc = new Hono<AppEnv>();

/** GitHub's ID tokens are about 1–2 KB; a body past this is refused unread (413). */
export const maxExchangeBytes = 16 * 1024;
/** The longest an exchanged token lives. */
export const exchangedTokenMs = 15 * 60_000;
/** Sites one repository may be trusted by, as one exchange reads them. */
const maxPoliciesPerRepository = 100;

function unauthorized(detail: string): Problem {
  return new Problem('unauthorized', detail);
}

/** The sites whose policy `claims` match; 403 naming the claim that the closest policy refuses. */
function matching(policies: readonly StoredTrust[], claims: GithubClaims): string[] {
  const results = policies.map((policy) => ({ domain: policy.domain, claim: mismatchedClaim(policy, claims) }));
  const matched = results.filter((result) => result.claim === null).map((result) => result.domain);
  if (matched.length > 0) return matched;
  const claim = results.map((result) => result.claim!).sort((a, b) => claimOrder.indexOf(b) - claimOrder.indexOf(a))[0] ?? 'repository_id';
  throw new Problem('claim-mismatch', `No site trusts this job: its "${claim}" claim (${JSON.stringify(claims[claim] ?? null)}) matches no trust policy${claim === 'repository_id' ? ` of ${claims.repository}` : ''}.`, {
    extensions: { claim },
  });
}

/** The one owner of `domains`; 409 when the matched sites belong to several users (a token is one user's). */
async function ownerOf(db: D1Database, domains: readonly string[]): Promise<string> {
  const owners = new Set((await Promise.all(domains.map((domain) => getSiteOwner(db, domain)))).flatMap((owner) => (owner ? [owner.userId] : [])));
  if (owners.size !== 1) throw new Problem('conflict', `The sites trusting this job (${domains.join(', ')}) ${owners.size === 0 ? 'are gone' : 'belong to several users'}: a token is one user's.`);
  return [...owners][0]!;
}

resource(oidc, '/v2/oidc/github', {
  POST: [
    async (c) => {
      const body = await readJsonBody(c.req.raw, 'application/json', {
        maxBytes: maxExchangeBytes,
        tooLarge: () => new Problem('payload-too-large', `An exchange's body is at most ${maxExchangeBytes} bytes: send the ID token alone.`, { extensions: { limit: 'MAX_EXCHANGE_BYTES', value: maxExchangeBytes } }),
      });
      const idToken = (body as { token?: unknown } | null)?.token;
      if (typeof idToken !== 'string' || idToken === '') throw new Problem('invalid-request', 'Send {"token": "<the job\'s OIDC ID token>"}.');
      const settings = settingsOf(c.env).githubOidc;
      const now = Date.now();
      let claims: GithubClaims;
      try {
        claims = await verifyGithubIdToken(idToken, settings, settings.audience ?? new URL(c.req.url).origin, now);
      } catch (error) {
        if (error instanceof InvalidToken) throw unauthorized(error.message);
        throw error;
      }
      const sites = matching(await trustsOfRepository(c.env.DB, claims.repository_id, maxPoliciesPerRepository), claims);
      const userId = await ownerOf(c.env.DB, sites);
      if (!(await recordExchange(c.env.DB, claims.jti, claims.exp * 1000, now))) {
        throw unauthorized('This ID token was exchanged already: a job requests a new one for each exchange.');
      }
      const token = newToken();
      const record: ApiTokenRecord = {
        id: newTokenId(),
        userId,
        name: `GitHub Actions: ${claims.job_workflow_ref}`.slice(0, 200),
        hash: await sha256Hex(token),
        scopes: ['deploy'],
        sites,
        created: now,
        expires: now + exchangedTokenMs,
        lastUsed: null,
        parentId: null,
      };
      // Outside API_TOKENS_PER_USER: the owner did not make it, and it expires within minutes.
      await insertToken(c.env.DB, record, Number.MAX_SAFE_INTEGER, now);
      await announce(c.env, `token-create:${record.id}`, { type: 'token-create', userId, ...view(record), via: 'github-oidc' });
      const answer: OidcExchange = { token, expiresAt: timestamp(record.expires), sites };
      return c.json(answer, 200, { 'cache-control': 'no-store' });
    },
  ],
});
