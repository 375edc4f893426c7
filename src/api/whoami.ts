import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScopeAcrossSites } from '../auth/middleware';
import type { Identity } from '../common/api-types';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';

export const whoami = new Hono<AppEnv>();

/** `GET /v2/whoami`: who a valid token is, as the service reads it (any scope, or none). `sitehost whoami` asks it. */
resource(whoami, '/v2/whoami', {
  GET: [
    requireScopeAcrossSites(),
    (c) => {
      const { userId, scopes, issuer, expiresAt, sites, tokenId } = c.get('principal');
      const body: Identity = {
        userId,
        scopes: [...scopes].sort(),
        issuer,
        expiresAt: timestamp(expiresAt),
        ...(tokenId === null ? {} : { tokenId, sites: sites && [...sites].sort() }),
      };
      return c.json(body);
    },
  ],
});
