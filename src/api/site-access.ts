import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { ownedByAnotherUser, siteNotFound } from '../deploy/ownership';
import { siteCoordinator } from '../deploy/site-coordinator';
import type { SiteRecord } from '../storage/sites';

/**
 * The live site for a read: anyone with `global_read`, or its owner with `deploy`.
 * Read from the domain's coordinator, so it reflects every committed change.
 */
export async function readableSite(c: Context<AppEnv>, domain: string): Promise<SiteRecord> {
  const site = await siteCoordinator(c.env, domain).current(domain);
  if (!site) throw siteNotFound(domain);
  const { userId, scopes } = c.get('principal');
  if (!scopes.has('global_read') && site.userId !== userId) throw ownedByAnotherUser(domain);
  return site;
}
