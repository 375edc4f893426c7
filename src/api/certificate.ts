import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { parseChain } from '../certificates/certificate-material';
import { open } from '../certificates/keys-at-rest';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { authorize } from '../coordinator/access/access';
import { getCertificate } from '../storage/certificates';
import { getSiteOwner } from '../storage/sites-table';
import { domainParam } from './domain-param';

export const certificate = new Hono<AppEnv>();

/**
 * The PEM certificate, intermediates and private key of a site, for self-hosted edge servers
 * (`global_read`). 404 until one is issued; with `CERT_ISSUER=off` none ever is.
 */
resource(certificate, '/v2/sites/:domain/certificate', {
  GET: [
    requireScope('global_read'),
    async (c) => {
      const domain = domainParam(c);
      authorize(c.get('principal'), domain, await getSiteOwner(c.env.DB, domain), 'read');
      const stored = await getCertificate(c.env.DB, domain);
      if (stored?.status !== 'issued' || stored.expires === null) {
        throw new Problem('not-found', `${domain} has no certificate yet (${stored?.status ?? 'pending'}).`);
      }
      if (stored.chain === null || stored.encryptedKey === null) {
        throw new Problem('not-found', `The certificate of ${domain} is kept by ${stored.issuer ?? 'its issuer'}; its key cannot be exported.`);
      }
      const { cert, ca } = parseChain(stored.chain);
      const key = await open(c.env.CERT_ENCRYPTION_KEY, domain, stored.encryptedKey);
      return c.json({ domain, cert, key, ca, expires: timestamp(stored.expires) }, 200, { 'cache-control': 'no-store' });
    },
  ],
});
