import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { domainProof } from '../domains/claim';
import { resource } from '../http/resource';
import { getSiteOwner } from '../storage/sites-table';
import { domainParam } from './domain-param';

export const domains = new Hono<AppEnv>();

/**
 * The DNS record that proves the caller controls a domain, before its first deploy
 * (src/domains/claim.ts): whether that deploy needs it, and whether the DNS shows it now.
 */
resource(domains, '/v2/domains/:domain/proof', {
  GET: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const proof = await domainProof(c.env, domain, c.get('principal').userId, (await getSiteOwner(c.env.DB, domain))?.userId ?? null);
      // `verified` is the DNS of this moment: a client asks again rather than reuse it.
      return c.json(proof, 200, { 'cache-control': 'no-store' });
    },
  ],
});
