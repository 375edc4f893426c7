/**
 * `/v2/sites/<domain>/trust/github`: which GitHub Actions jobs may deploy a site with no stored
 * secret (docs/api.md, "Trusted deploys"). The owner only: the coordinator checks it as it
 * commits (src/coordinator/access/access-changes.ts); a read checks it here.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { githubTrustOf } from '../auth/github-trust';
import { requireScope, requireSiteRead } from '../auth/middleware';
import type { GithubTrustPolicy } from '../common/api-types';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { type StoredTrust, getTrust } from '../storage/trust-table';
import { recheckCaller } from './current-credential';
import { domainParam } from './domain-param';
import { readableSite, requesterOf } from './site-access';
import { announce } from './tokens';

export const trust = new Hono<AppEnv>();

function view(policy: StoredTrust): GithubTrustPolicy {
  const { domain, repository, repositoryId, repositoryOwnerId, workflow, ref, environment, eventName, modified } = policy;
  return { domain, repository, repositoryId, repositoryOwnerId, workflow, ref, environment, eventName, modified: timestamp(modified) };
}

resource(trust, '/v2/sites/:domain/trust/github', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      await readableSite(c, domain, 'read-own');
      const policy = await getTrust(c.env.DB, domain);
      if (!policy) throw new Problem('not-found', `${domain} has no GitHub trust policy: PUT one to deploy from GitHub Actions with no stored secret.`);
      return c.json(view(policy));
    },
  ],
  PUT: [
    requireScope('deploy'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const policy = githubTrustOf(await readJsonBody(c.req.raw, 'application/json'));
      const { userId } = c.get('principal');
      const answer = (await siteCoordinator(c.env, domain).changeAccess(domain, requesterOf(c.get('principal')), { kind: 'trust-put', trust: policy })) as { trust: StoredTrust; created: boolean };
      const body = view(answer.trust);
      await announce(c.env, `trust-change:${domain}:${answer.trust.modified}`, { type: 'trust-change', userId, domain, provider: 'github', policy: body });
      return c.json(body, answer.created ? 201 : 200);
    },
  ],
  DELETE: [
    requireScope('deploy'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const { userId } = c.get('principal');
      await siteCoordinator(c.env, domain).changeAccess(domain, requesterOf(c.get('principal')), { kind: 'trust-remove' });
      await announce(c.env, `trust-change:${domain}:${Date.now()}`, { type: 'trust-change', userId, domain, provider: 'github', policy: null });
      return c.body(null, 204);
    },
  ],
});
