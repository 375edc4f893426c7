import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { type Role, authorize, roleOf } from '../coordinator/access/access';
import { claimOf } from '../coordinator/sweeps/claims';
import type { Audience } from '../events/event';
import { subscribe } from '../events/subscribe';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { settingsOf } from '../platform/settings';
import { siteAccess } from '../storage/members-table';
import { credentialHolds, recheckCaller } from './current-credential';
import { domainParam } from './domain-param';
import { type ReadCheck, whileReadable } from './reader-streams';
import { readableSite } from './site-access';

export const events = new Hono<AppEnv>();

/** Whether the caller sees a site's trust policy, as `GET …/trust/github` shows it: its owner, or global_read. */
function seesTrust(c: Context<AppEnv>, role: Role): boolean {
  return role === 'owner' || c.get('principal').scopes.has('global_read');
}

/**
 * Whether the caller may still read `domain`, of the claim its stream is of (`claim`), and sees
 * what it saw when the stream began (`trust`): its owner and their membership as D1 holds them now
 * (one query). A reader whose view changed, or whose claim ended (the domain unpublished, and
 * maybe claimed again), reconnects and gets a stream of its new view. global_read reads every
 * site: only the claim's end ends its stream.
 */
async function stillReads(c: Context<AppEnv>, domain: string, claim: string, trust: boolean): Promise<boolean> {
  const principal = c.get('principal');
  const { site, member } = await siteAccess(c.env.DB, domain, principal.userId);
  if (claimOf(site) !== claim) return false;
  if (principal.scopes.has('global_read')) return true;
  try {
    authorize(principal, domain, site, 'read', member);
    return seesTrust(c, site && roleOf(principal, site, member)) === trust;
  } catch (error) {
    if (error instanceof Problem) return false;
    throw error;
  }
}

/** `audience`'s stream, going on only while the caller's credential holds (and `alsoReads`, if any), re-checked every API_TOKEN_CHECK_SECONDS. */
async function guardedStream(c: Context<AppEnv>, audience: Audience, alsoReads?: ReadCheck): Promise<Response> {
  const stream = await subscribe(c.env, c.req.raw, audience);
  const holds = () => credentialHolds(c.env, c.get('principal'));
  const check: ReadCheck = alsoReads ? async () => (await holds()) && (await alsoReads()) : holds;
  return whileReadable(stream, check, settingsOf(c.env).apiTokens.checkSeconds * 1000);
}

resource(events, '/v2/events', {
  GET: [requireScope('global_read'), recheckCaller, (c) => guardedStream(c, 'service')],
});

/**
 * One site's events, for whoever may read the site: its owner, its members, global_read (docs/events.md,
 * "One site's events"), of its current claim only, and without the trust policy for whoever may not GET it.
 */
resource(events, '/v2/sites/:domain/events', {
  GET: [
    requireSiteRead(),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const site = await readableSite(c, domain);
      const principal = c.get('principal');
      const { member } = await siteAccess(c.env.DB, domain, principal.userId);
      const trust = seesTrust(c, roleOf(principal, site, member));
      const claim = claimOf(site)!;
      const audience: Audience = { domain, claimedAt: site.created, claim, hidesTrust: !trust };
      return guardedStream(c, audience, () => stillReads(c, domain, claim, trust));
    },
  ],
});

/** A user's own events (token-create, token-revoke), for any token of theirs that is not limited to sites. */
resource(events, '/v2/user/events', {
  GET: [requireScope(), recheckCaller, (c) => guardedStream(c, { userId: c.get('principal').userId })],
});
