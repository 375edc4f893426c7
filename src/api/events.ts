import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { subscribe } from '../events/subscribe';
import { resource } from '../http/resource';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const events = new Hono<AppEnv>();

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
      return subscribe(c.env, c.req.raw, { domain });
    },
  ],
});

/** A user's own events (token-create, token-revoke), for any token of theirs that is not limited to sites. */
resource(events, '/v2/user/events', {
  GET: [requireScope(), (c) => subscribe(c.env, c.req.raw, { userId: c.get('principal').userId })],
});
