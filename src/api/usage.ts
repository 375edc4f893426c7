import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { resource } from '../http/resource';
import type { Usage } from '../common/api-types';
import { userQuotas } from '../quotas/user-quotas';
import { readUsage } from '../storage/usage-ledger';

export const usage = new Hono<AppEnv>();

resource(usage, '/v2/usage', {
  GET: [
    requireScope('deploy'),
    async (c) => {
      const { userId } = c.get('principal');
      const quotas = userQuotas(c.env);
      const used = await readUsage(c.env.DB, userId);
      const body: Usage = {
        userId,
        sites: { used: used.sites, limit: quotas.maxSites, setting: 'MAX_SITES_PER_USER' },
        bytes: { used: used.bytes, limit: quotas.maxBytes, setting: 'MAX_USER_BYTES' },
        deploysPerHour: { used: used.deploysLastHour, limit: quotas.deploysPerHour, setting: 'DEPLOYS_PER_HOUR' },
      };
      return c.json(body);
    },
  ],
});
