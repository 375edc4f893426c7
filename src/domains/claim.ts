/**
 * Proof of domain control: who may claim a domain that has no site (docs/design.md, "Domains").
 * With DOMAIN_PROOF=dns a domain is claimed only once its DNS shows the claimant's TXT record;
 * the claim then holds like any other (a site's owner is never asked again). The Worker checks
 * before it reads a deploy's body, to refuse early; the domain's coordinator checks again as it
 * commits the claim, since only it sees a site that vanished meanwhile (src/coordinator/commit/site-state.ts).
 */
import type { DomainProof, DomainProofRecord } from '../common/api-types';
import { Problem } from '../http/problem';
import { log } from '../platform/log';
import { type DomainSettings, type SettingVars, settingsOf } from '../platform/settings';
import { claimKind } from './claim-rules';
import { ResolverUnavailable, txtRecords } from './doh';
import { proofRecord } from './proof-record';

/** Seconds a client waits before it asks again when the resolver could not answer. */
const retryAfterSeconds = 30;

/**
 * Refuses a claim of `domain`, which has no site, by `userId`: 400 when no one may claim it; with
 * DOMAIN_PROOF=dns and unless it is a free subdomain, 403 `domain-proof-required` naming the
 * record while the DNS does not show it, and 503 with `Retry-After` while the resolver cannot tell.
 */
export async function checkClaim(vars: SettingVars, domain: string, userId: string): Promise<void> {
  const settings = settingsOf(vars).domains;
  if (claimKind(domain, settings.parentDomain) === 'free' || settings.proof === 'off') return;
  const record = await recordOf(settings, userId, domain);
  if (!(await isProven(settings, domain, record))) throw proofRequired(domain, record);
}

/**
 * `GET /v2/domains/<domain>/proof`: the record `userId` adds, whether a first deploy needs it
 * (`owner`: whoever has a site there now, null for none), and whether the DNS shows it now
 * (looked up only where a proof counts: with DOMAIN_PROOF=dns, and for no free subdomain).
 */
export async function domainProof(vars: SettingVars, domain: string, userId: string, owner: string | null): Promise<DomainProof> {
  const settings = settingsOf(vars).domains;
  const kind = claimKind(domain, settings.parentDomain);
  const record = await recordOf(settings, userId, domain);
  const checked = settings.proof === 'dns' && kind === 'proof';
  return {
    domain,
    ...record,
    required: checked && owner !== userId,
    verified: checked && (await isProven(settings, domain, record)),
  };
}

/** The longest name DNS carries (RFC 1035 §2.3.4, in its dotted form). */
const maxNameLength = 253;

async function recordOf(settings: DomainSettings, userId: string, domain: string): Promise<DomainProofRecord> {
  // Only with DOMAIN_PROOF=off can the key be missing (settings.ts refuses `dns` without one).
  if (settings.proofKey === null) throw new Problem('internal', 'Proof values need the secret DOMAIN_PROOF_SECRET, which is not set.');
  const record = await proofRecord(settings.proofKey, userId, domain);
  if (record.name.length > maxNameLength) {
    throw new Problem('domain-not-claimable', `"${domain}" cannot be proven: its record ${record.name} would be longer than the ${maxNameLength} characters a DNS name may have.`, {
      extensions: { reason: 'name-too-long' },
    });
  }
  return record;
}

/** Whether one of the TXT records at the record's name holds its value (quotes and spaces around it forgiven, as DNS consoles add them). */
async function isProven(settings: DomainSettings, domain: string, record: DomainProofRecord): Promise<boolean> {
  try {
    const texts = await txtRecords(settings.resolverUrl, record.name);
    return texts.some((text) => text.replace(/^[\s"]+|[\s"]+$/g, '') === record.value);
  } catch (error) {
    if (!(error instanceof ResolverUnavailable)) throw error;
    log.warn('The DNS resolver could not be asked for a domain proof', { name: record.name, error });
    throw new Problem(
      'unavailable',
      `The DNS of ${domain} cannot be checked for its proof of control right now: the resolver ${error.message}. Try again in ${retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(retryAfterSeconds) }, extensions: { record } },
    );
  }
}

/** 403: the record `domain`'s DNS must show before the caller can claim it. */
function proofRequired(domain: string, record: DomainProofRecord): Problem {
  return new Problem(
    'domain-proof-required',
    `Prove that you control ${domain} before its first deploy: add the DNS record ${record.name} ${record.type} "${record.value}", ` +
      `then deploy again once it is visible (DNS changes take minutes, up to the TTL of what was cached before). ` +
      `GET /v2/domains/${domain}/proof tells whether it is.`,
    { extensions: { record } },
  );
}
