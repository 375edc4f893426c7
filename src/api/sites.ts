import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { requireScope } from '../auth/middleware';
import { deploySite } from '../deploy/deploy-site';
import { siteCoordinator, unwrap } from '../deploy/site-coordinator';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { listSitesOf } from '../storage/sites';
import { domainParam } from './domain-param';

export const sites = new Hono<AppEnv>();

resource(sites, '/v2/sites', {
  GET: [
    requireScope('deploy'),
    async (c) => {
      const list = await listSitesOf(c.env.DB, c.get('principal').userId);
      return c.json(list.map((site) => ({ ...site, modified: timestamp(site.modified) })));
    },
  ],
});

resource(sites, '/v2/sites/:domain', {
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      return c.json(await deploySite(c.env, c.req.raw, domain, c.get('principal').userId));
    },
  ],
  DELETE: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      unwrap(await siteCoordinator(c.env, domain).unpublish(domain, c.get('principal').userId));
      return c.body(null, 200);
    },
  ],
});
