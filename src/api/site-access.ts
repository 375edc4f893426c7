import type { Context } from 'hono';
import type { AppEnv } from '../platform/app-env';
import type { Principal } from '../auth/tokens';
import { type Deployer, type Requester, type SiteAction, authorize } from '../coordinator/access/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { memberRole } from '../storage/members-table';
import type { SiteOwner, SiteRecord } from '../storage/sites-table';

/**
 * Throws unless the caller may `action` (a read) `site` of `domain`: its membership is looked
 * up only when the caller neither owns the site nor reads every site.
 */
export async function authorizeRead(c: Context<AppEnv>, domain: string, site: SiteOwner | null, action: Extract<SiteAction, 'read' | 'read-own'> = 'read'): Promise<void> {
  const principal = c.get('principal');
  const member = site && site.userId !== principal.userId && !principal.scopes.has('global_read') ? await memberRole(c.env.DB, domain, principal.userId) : null;
  authorize(principal, domain, site, action, member);
}

/** Who the caller is to the access rule: its user, and the most its credential may be on a site. */
export function requesterOf({ userId, ceiling }: Principal): Requester {
  return { userId, ceiling };
}

/** Who deploys: the caller's user; only a credential of every site (not limited to some) may claim a domain no site holds. */
export function deployerOf({ userId, sites }: Principal): Deployer {
  return { userId, claims: sites === null };
}

/** The live site for a read, from the domain's coordinator, so that it reflects every committed change. */
export async function readableSite(c: Context<AppEnv>, domain: string, action: Extract<SiteAction, 'read' | 'read-own'> = 'read'): Promise<SiteRecord> {
  const site = await siteCoordinator(c.env, domain).current(domain);
  await authorizeRead(c, domain, site, action);
  return site!;
}
