import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { authorize } from '../coordinator/access/access';
import { subscribe } from '../events/subscribe';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { settingsOf } from '../platform/settings';
import { siteAccess } from '../storage/members-table';
import { domainParam } from './domain-param';
import { whileReadable } from './reader-streams';
import { readableSite } from './site-access';

export const events = new Hono<AppEnv>();

/** Whether the caller may still read `domain`: its owner and their membership as D1 holds them now (one query). */
async function stillReads(c: Context<AppEnv>, domain: string): Promise<boolean> {
  const { site, member } = await siteAccess(c.env.DB, domain, c.get('principal').userId);
  try {
    authorize(c.get('principal'), domain, site, 'read', member);
    return true;
  } catch (error) {
    if (error instanceof Problem) return false;
    throw error;
  }
}

resource(events, '/v2/events', {
  GET: [requireScope('global_read'), (c) => subscribe(c.env, c.req.raw, 'service')],
});

/** One site's events, for whoever may read the site: its owner, its members, global_read (docs/events.md, "One site's events"). */
resource(events, '/v2/sites/:domain/events', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      await readableSite(c, domain);
      const stream = await subscribe(c.env, c.req.raw, { domain });
      // global_read reads every site: nothing done to this one takes it away.
      if (c.get('principal').scopes.has('global_read')) return stream;
      return whileReadable(stream, () => stillReads(c, domain), settingsOf(c.env).apiTokens.checkSeconds * 1000);
    },
  ],
});

/** A user's own events (token-create, token-revoke), for any token of theirs that is not limited to sites. */
resource(events, '/v2/user/events', {
  GET: [requireScope(), (c) => subscribe(c.env, c.req.raw, { userId: c.get('principal').userId })],
});
