import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScopeAcrossSites } from '../auth/middleware';
import type { Identity } from '../common/api-types';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { getUserSuspension } from '../storage/user-suspensions';
import { suspensionView } from './operators';

export const whoami = new Hono<AppEnv>();

/** `GET /v2/whoami`: who a valid token is, as the service reads it (any scope, or none). `sitehost whoami` asks it. */
resource(whoami, '/v2/whoami', {
  GET: [
    requireScopeAcrossSites(),
    async (c) => {
      const { userId, scopes, issuer, expiresAt, sites, tokenId, ceiling, credential } = c.get('principal');
      // A suspended user learns why here, whatever their token may do; others' answers are as they were.
      const suspension = await getUserSuspension(c.env.DB, userId);
      const body: Identity = {
        userId,
        scopes: [...scopes].sort(),
        issuer,
        expiresAt: timestamp(expiresAt),
        ...(tokenId === null ? {} : { tokenId, sites: sites && [...sites].sort() }),
        // What the credential is at most on its sites (src/auth/authority.ts).
        ...(sites === null ? {} : { role: ceiling }),
        ...(credential === 'ci' ? { via: 'github-oidc' as const } : {}),
        ...(suspension ? { suspension: suspensionView(suspension) } : {}),
      };
      return c.json(body);
    },
  ],
});
