import { budgetedZoneApi } from '../cloudflare-api/account-client';
import type { Env } from '../platform/env';
import { AcmeIssuer } from './acme/acme-issuer';
import { CloudflareIssuer } from './cloudflare-for-saas/cloudflare-issuer';
import type { Issuer } from './issuer';

/** `CERT_ISSUER` is not one of the documented modes, or the mode lacks its settings. */
export class IssuerConfigurationError extends Error {
  override name = 'IssuerConfigurationError';
}

/** `CERT_ISSUER=off`, the local default: no certificates, for use behind another TLS terminator. */
export function certificatesOff(env: Env): boolean {
  return env.CERT_ISSUER === 'off';
}

/** The issuer `CERT_ISSUER` selects (not `off`), or the one named. */
export function issuerFor(env: Env, name: string = env.CERT_ISSUER): Issuer {
  switch (name) {
    case 'acme':
      if (!env.ACME_DIRECTORY_URL) throw new IssuerConfigurationError('CERT_ISSUER=acme needs ACME_DIRECTORY_URL.');
      return new AcmeIssuer({
        db: env.DB,
        directoryUrl: env.ACME_DIRECTORY_URL,
        encryptionSecret: env.CERT_ENCRYPTION_KEY,
        contact: env.ACME_CONTACT?.split(',').map((contact) => contact.trim()).filter(Boolean),
      });
    case 'cloudflare':
      return cloudflareIssuer(env);
    default:
      throw new IssuerConfigurationError(`CERT_ISSUER is "${name}"; use acme, cloudflare or off.`);
  }
}

function cloudflareIssuer(env: Env): CloudflareIssuer {
  if (!env.CLOUDFLARE_ZONE_ID || !env.CLOUDFLARE_API_TOKEN) {
    throw new IssuerConfigurationError('CERT_ISSUER=cloudflare needs CLOUDFLARE_ZONE_ID and the secret CLOUDFLARE_API_TOKEN.');
  }
  return new CloudflareIssuer(budgetedZoneApi(env));
}
