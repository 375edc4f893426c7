import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { subscribe } from '../events/subscribe';
import { resource } from '../http/resource';

export const events = new Hono<AppEnv>();

resource(events, '/v2/events', {
  GET: [requireScope('global_read'), (c) => subscribe(c.env, c.req.raw, 'service')],
});

/** A user's own events (token-create, token-revoke), for any token of theirs that is not limited to sites. */
resource(events, '/v2/user/events', {
  GET: [requireScope(), (c) => subscribe(c.env, c.req.raw, { userId: c.get('principal').userId })],
});
