/**
 * The sites a new token may be limited to (docs/design.md, "API tokens"): those its user owns or
 * is a member of, with scopes no wider than the user's role on each, as a GitHub fine-grained
 * token is bounded by its user's access. The token acts as its user, so the access rule checks the
 * role again on every request: a member removed or made a viewer is refused at once.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/app-env';
import type { Scope } from '../auth/api-tokens';
import type { Ceiling } from '../auth/authority';
import { type Role, roleOf } from '../coordinator/access/access';
import { Problem } from '../http/problem';
import { siteAccess } from '../storage/members-table';

/** The scopes a role cannot grant on its site: a viewer reads (`read`), and only reads. */
const beyondRole: Partial<Record<NonNullable<Role>, readonly Scope[]>> = { viewer: ['deploy'] };

interface Refusal {
  pointer: string;
  message: string;
}

/** Why `role` cannot have a token of `scopes` and `tokenRole` limited to `domain`; null when it can. */
function refusalOf(domain: string, role: Role, scopes: readonly Scope[], tokenRole: Ceiling): string | null {
  if (role === null) return `you neither own ${domain} nor are a member of it`;
  if (tokenRole === 'owner' && role !== 'owner') return `you are a ${role} of ${domain}: only its owner makes a token of role "owner" for it`;
  const beyond = scopes.filter((scope) => beyondRole[role]?.includes(scope));
  if (beyond.length === 0) return null;
  return `you are a ${role} of ${domain}: a token limited to it may read it (scope "read"), not ${beyond.map((scope) => `"${scope}"`).join(', ')}`;
}

/**
 * Throws 403 `forbidden`, naming every site refused and why (pointing at it in `sites`, the
 * domains as the request named them), unless the caller owns or is a member of each with a role
 * that allows `scopes` (and, for a token of role owner, owns it). One D1 query a domain (at most MAX_SITES_PER_USER of them), run together.
 */
export async function refuseUnreachableSites(c: Context<AppEnv>, sites: readonly string[], scopes: readonly Scope[], tokenRole: Ceiling): Promise<void> {
  const caller = c.get('principal');
  const domains = [...new Set(sites)];
  const access = new Map(await Promise.all(domains.map(async (domain) => [domain, await siteAccess(c.env.DB, domain, caller.userId)] as const)));
  const refusals: Refusal[] = [];
  sites.forEach((domain, index) => {
    const { site, member } = access.get(domain)!;
    const why = refusalOf(domain, site && roleOf(caller, site, member), scopes, tokenRole);
    if (why !== null) refusals.push({ pointer: `/sites/${index}`, message: why });
  });
  if (refusals.length === 0) return;
  const detail = `A token can be limited only to sites you own or are a member of, with no more than your role there allows: ${refusals.map((refusal) => refusal.message).join('; ')}.`;
  throw new Problem('forbidden', detail, { errors: refusals });
}
