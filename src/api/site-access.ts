import type { Context } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { authorize } from '../coordinator/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import type { SiteRecord } from '../storage/sites-table';

/** The live site for a read, from the domain's coordinator, so that it reflects every committed change. */
export async function readableSite(c: Context<AppEnv>, domain: string): Promise<SiteRecord> {
  const site = await siteCoordinator(c.env, domain).current(domain);
  authorize(c.get('principal'), domain, site, 'read');
  return site!;
}
