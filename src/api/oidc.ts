/**
 * `POST /v2/oidc/github`: a GitHub Actions job trades its OIDC ID token for a short-lived API
 * token of the sites whose trust policy it matches (docs/api.md, "Trusted deploys"), so that a
 * workflow deploys with no stored secret. No Authorization header: the ID token is the credential.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { exchangedTokenMs, jobOf, mintCiToken } from '../auth/ci-tokens';
import { type GithubClaims, verifyGithubIdToken } from '../auth/github-oidc';
import { claimOrder, mismatchedClaim } from '../auth/github-trust';
import { InvalidToken } from '../auth/tokens';
import type { OidcExchange } from '../common/api-types';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { parseDomain } from '../platform/domain-name';
import { settingsOf } from '../platform/settings';
import { type OwnedTrust, countExchange, recordExchange, trustsWithOwners } from '../storage/trust-table';
import { announce, view } from './tokens';

export const oidc = new Hono<AppEnv>();

/** GitHub's ID tokens are about 1–2 KB; a body past this is refused unread (413). */
export const maxExchangeBytes = 16 * 1024;
export { exchangedTokenMs };
/** Sites one repository may be trusted by, as one exchange reads them. */
const maxPoliciesPerRepository = 100;

function unauthorized(detail: string): Problem {
  return new Problem('unauthorized', detail);
}

/** The body: the ID token, and the site the job deploys (absent: every site whose policy matches, of one owner). */
function exchangeRequest(body: unknown, apiHostnames: readonly string[]): { idToken: string; domain: string | null } {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as { token?: unknown; domain?: unknown };
  if (typeof fields.token !== 'string' || fields.token === '') throw new Problem('invalid-request', 'Send {"token": "<the job\'s OIDC ID token>", "domain"?: "<the site it deploys>"}.');
  if (fields.domain === undefined || fields.domain === null) return { idToken: fields.token, domain: null };
  if (typeof fields.domain !== 'string') throw new Problem('invalid-request', '"domain" is the domain of the site the job deploys.');
  return { idToken: fields.token, domain: parseDomain(fields.domain, apiHostnames) };
}

/** The policies `claims` match; 403 naming the claim that the closest policy refuses. */
function matching(policies: readonly OwnedTrust[], claims: GithubClaims, domain: string | null): OwnedTrust[] {
  const results = policies.map((policy) => ({ policy, claim: mismatchedClaim(policy, claims) }));
  const matched = results.filter((result) => result.claim === null).map((result) => result.policy);
  if (matched.length > 0) return matched;
  const claim = results.map((result) => result.claim!).sort((a, b) => claimOrder.indexOf(b) - claimOrder.indexOf(a))[0] ?? 'repository_id';
  const where = domain === null ? (claim === 'repository_id' ? ` of ${claims.repository}` : '') : ` of ${domain}`;
  throw new Problem('claim-mismatch', `No site trusts this job: its "${claim}" claim (${JSON.stringify(claims[claim] ?? null)}) matches no trust policy${where}.`, {
    extensions: { claim },
  });
}

/**
 * The one owner of the matched policies and their sites. Policies of several owners may name one
 * repository (its id is public, and anyone may write a policy on their own site): the caller is
 * then told how to name its site, and nothing of the other owners' sites.
 */
function ownerOf(matched: readonly OwnedTrust[]): { userId: string; sites: string[] } {
  const owners = new Set(matched.map((policy) => policy.owner));
  if (owners.size > 1) {
    throw new Problem('conflict', `Trust policies of several owners accept this job, and a token is one owner's: name the site it deploys, {"token": "…", "domain": "<the site>"} (sitehost deploy sends its domain).`);
  }
  return { userId: matched[0]!.owner, sites: matched.map((policy) => policy.domain) };
}

resource(oidc, '/v2/oidc/github', {
  POST: [
    async (c) => {
      const body = await readJsonBody(c.req.raw, 'application/json', {
        maxBytes: maxExchangeBytes,
        tooLarge: () => new Problem('payload-too-large', `An exchange's body is at most ${maxExchangeBytes} bytes: send the ID token alone.`, { extensions: { limit: 'MAX_EXCHANGE_BYTES', value: maxExchangeBytes } }),
      });
      const { idToken, domain } = exchangeRequest(body, settingsOf(c.env).apiHostnames);
      const settings = settingsOf(c.env).githubOidc;
      const now = Date.now();
      let claims: GithubClaims;
      try {
        claims = await verifyGithubIdToken(idToken, settings, settings.audience ?? new URL(c.req.url).origin, now);
      } catch (error) {
        if (error instanceof InvalidToken) throw unauthorized(error.message);
        throw error;
      }
      const policies = await trustsWithOwners(c.env.DB, domain === null ? { repositoryId: claims.repository_id } : { domain }, maxPoliciesPerRepository);
      const { userId, sites } = ownerOf(matching(policies, claims, domain));
      if (!(await recordExchange(c.env.DB, claims.jti, claims.exp * 1000, now))) {
        throw unauthorized('This ID token was exchanged already: a job requests a new one for each exchange.');
      }
      // After the replay check: a replayed token spends none of the site's exchanges.
      const full = await countExchange(c.env.DB, sites, settings.exchangesPerSiteHour, now);
      if (full !== null) {
        throw new Problem('rate-limited', `${full} had ${settings.exchangesPerSiteHour} exchanges this hour, as many as a site may (OIDC_EXCHANGES_PER_SITE_HOUR): try again next hour.`, {
          headers: { 'retry-after': String(Math.ceil((3_600_000 - (now % 3_600_000)) / 1000)) },
          extensions: { limit: 'OIDC_EXCHANGES_PER_SITE_HOUR', value: settings.exchangesPerSiteHour },
        });
      }
      const { token, record } = await mintCiToken(c.env.DB, userId, sites, jobOf(claims), now);
      await announce(c.env, `token-create:${record.id}`, { type: 'token-create', userId, ...view(record) });
      const answer: OidcExchange = { token, expiresAt: timestamp(record.expires), sites };
      return c.json(answer, 200, { 'cache-control': 'no-store' });
    },
  ],
});
