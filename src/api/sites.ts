import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireScopeAcrossSites } from '../auth/middleware';
import { capped } from '../auth/authority';
import { provenanceOf } from '../auth/tokens';
import { deploySite } from '../deploy/deploy-site';
import { deployLimits } from '../content/deploy-limits';
import { checkDeployLength } from '../deploy/receive';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { purgeNotice } from './purge-notice';
import { nextPageLink, pageQuery } from '../http/page';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { listReachableSites } from '../storage/members-table';
import { deployAnswer, deploymentView } from './deployments';
import { recheckCaller } from './current-credential';
import { domainParam } from './domain-param';
import { unpublishAsOperator } from './operators';
import { deployerOf, requesterOf } from './site-access';

/** `?preview=true` stores the deploy as a deployment that is not live. */
function previewQuery(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new Problem('invalid-request', '`preview` is true or false.');
}

export const sites = new Hono<AppEnv>();

resource(sites, '/v2/sites', {
  GET: [
    requireScopeAcrossSites('deploy', 'read'),
    async (c) => {
      const url = new URL(c.req.url);
      const { limit, cursor } = pageQuery(url);
      const { userId, sites: within, ceiling } = c.get('principal');
      // One more than asked tells whether another page follows. A site-restricted token lists its
      // sites only: all the user reaches are read (at most MAX_SITES_PER_USER owned, and those they
      // are a member of) and filtered.
      const more = limit && limit + 1;
      const reachable = await listReachableSites(c.env.DB, userId, cursor, within ? undefined : more);
      const list = within ? reachable.filter((site) => within.has(site.domain)).slice(0, more) : reachable;
      const page = list.slice(0, limit);
      if (limit !== undefined && list.length > limit) c.header('link', nextPageLink(url, limit, page.at(-1)!.domain));
      // The role the caller holds there through this credential: a CI identity lists its sites as a deployer.
      return c.json(page.map((site) => ({ ...site, role: capped(site.role, ceiling), modified: timestamp(site.modified) })));
    },
  ],
});

resource(sites, '/v2/sites/:domain', {
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      checkDeployLength(c.req.raw, deployLimits(c.env));
      const preview = previewQuery(c.req.query('preview'));
      const deployed = await deploySite(c.env, c.req.raw, domain, deployerOf(c.get('principal')), provenanceOf(c.get('principal')), preview, purgeNotice(c));
      return 'type' in deployed ? deployAnswer(c, deployed) : c.json(deploymentView(c, deployed, null));
    },
  ],
  DELETE: [
    requireScope('deploy', 'admin'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      if (c.get('principal').scopes.has('admin')) await unpublishAsOperator(c, domain);
      else await siteCoordinator(c.env, domain, purgeNotice(c)).unpublish(domain, requesterOf(c.get('principal')));
      return c.body(null, 200);
    },
  ],
});
