import type { IssueOutcome, IssueRequest, Issuer } from '../issuer';
import type { ZoneApi } from '../../cloudflare-api/zone-api';
import { type CustomHostname, CustomHostnames } from './api';

/**
 * Cloudflare for SaaS: each site's domain becomes a custom hostname of `CLOUDFLARE_ZONE_ID`,
 * and Cloudflare issues, serves and renews its certificate at its edge. The job creates the
 * hostname, then polls it (a retry of the job) until its SSL status is `active`.
 */
export class CloudflareIssuer implements Issuer {
  readonly name = 'cloudflare';
  readonly #api: CustomHostnames;

  /** `zone`: the zone's API within the account's budget (src/cloudflare-api/account-client.ts), or a test's replay. */
  constructor(zone: ZoneApi) {
    this.#api = new CustomHostnames(zone);
  }

  async issue({ domain, externalId, rememberExternalId }: IssueRequest): Promise<IssueOutcome> {
    let hostname = await this.#api.ensure(domain, externalId);
    if (hostname.id !== externalId) await rememberExternalId(hostname.id);
    const ssl = hostname.ssl ?? {};
    if (ssl.status === 'active') return issuedOutcome(hostname);
    if (ssl.status?.endsWith('_timed_out')) {
      hostname = await this.#api.restartValidation(hostname.id);
      return { kind: 'waiting', detail: `Validation of ${domain} timed out at Cloudflare and was restarted. ${problems(hostname)}`.trim() };
    }
    return {
      kind: 'waiting',
      detail: `Cloudflare's certificate for ${domain} is ${ssl.status ?? 'not requested yet'}. ${problems(hostname)}`.trim(),
    };
  }

  remove(_domain: string, externalId: string): Promise<void> {
    return this.#api.remove(externalId);
  }
}

/** What the user must fix: Cloudflare's validation and ownership errors. */
function problems(hostname: CustomHostname): string {
  return [...(hostname.ssl?.validation_errors?.map((error) => error.message) ?? []), ...(hostname.verification_errors ?? [])].join(' ');
}

function issuedOutcome(hostname: CustomHostname): IssueOutcome {
  const certificate = hostname.ssl?.certificates?.[0];
  const expires = Date.parse(certificate?.expires_on ?? hostname.ssl?.expires_on ?? '');
  const issued = Date.parse(certificate?.issued_on ?? '');
  if (Number.isNaN(expires)) throw new Error(`Cloudflare reports ${hostname.hostname} active without an expiry date.`);
  return {
    kind: 'issued',
    issued: Number.isNaN(issued) ? Date.now() : issued,
    expires,
    chain: null,
    keyPem: null,
    externalId: hostname.id,
  };
}
