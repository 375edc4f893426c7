/**
 * Which domains can be claimed, and how (docs/design.md, "Domains"). The API and preview hosts
 * are refused before this, as no site's domain at all (src/api/domain-param.ts).
 */
import { parse } from 'tldts';
import { Problem } from '../http/problem';

/** How a domain with no site is claimed: `free`, first come, first served (a free subdomain of the service); or with `proof` of control. */
export type ClaimKind = 'free' | 'proof';

/** Why a domain can never be claimed, as the problem's `reason` names it (and `name-too-long`, for a proof record DNS cannot hold: ./claim.ts). */
type Unclaimable = 'public-suffix' | 'parent-domain';

function notClaimable(domain: string, reason: Unclaimable, why: string): Problem {
  return new Problem('domain-not-claimable', `"${domain}" cannot be claimed: ${why}.`, { extensions: { reason } });
}

/**
 * Throws 400 `domain-not-claimable` for a public suffix (a name under which anyone registers
 * names: `com`, `co.uk`, `github.io`, `pages.dev`; the Public Suffix List's ICANN and private
 * sections, through tldts) and for the service's own parent domain. A name one label under the
 * parent domain is `free`; any other name, deeper ones under the parent too, needs `proof`.
 */
export function claimKind(domain: string, parentDomain: string | null): ClaimKind {
  if (domain === parentDomain) {
    throw notClaimable(domain, 'parent-domain', `it is this service's own domain; its free sites are named <name>.${domain}`);
  }
  if (parse(domain, { allowPrivateDomains: true }).publicSuffix === domain) {
    throw notClaimable(domain, 'public-suffix', 'it is a public suffix, under which anyone can register names (the Public Suffix List)');
  }
  const label = parentDomain !== null && domain.endsWith(`.${parentDomain}`) ? domain.slice(0, -parentDomain.length - 1) : undefined;
  return label !== undefined && !label.includes('.') ? 'free' : 'proof';
}
