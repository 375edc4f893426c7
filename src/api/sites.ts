import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { requireScope } from '../auth/middleware';
import { deploySite } from '../deploy/deploy-site';
import { deployLimits } from '../deploy/limits';
import { checkDeployLength } from '../deploy/receive';
import { siteCoordinator } from '../site/client';
import { nextPageLink, pageQuery } from '../http/page';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { listSitesOf } from '../storage/sites';
import { domainParam } from './domain-param';

export const sites = new Hono<AppEnv>();

resource(sites, '/v2/sites', {
  GET: [
    requireScope('deploy'),
    async (c) => {
      const url = new URL(c.req.url);
      const { limit, cursor } = pageQuery(url);
      // One more than asked tells whether another page follows.
      const list = await listSitesOf(c.env.DB, c.get('principal').userId, { after: cursor, limit: limit && limit + 1 });
      const page = list.slice(0, limit);
      if (limit !== undefined && list.length > limit) c.header('link', nextPageLink(url, limit, page.at(-1)!.domain));
      return c.json(page.map((site) => ({ ...site, modified: timestamp(site.modified) })));
    },
  ],
});

resource(sites, '/v2/sites/:domain', {
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      checkDeployLength(c.req.raw, deployLimits(c.env));
      return c.json(await deploySite(c.env, c.req.raw, domain, c.get('principal').userId));
    },
  ],
  DELETE: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      await siteCoordinator(c.env, domain).unpublish(domain, c.get('principal').userId);
      return c.body(null, 200);
    },
  ],
});
