/**
 * The one rule for who may do what with a site; every route and the coordinator use it.
 *
 * Which owner to ask about: inside a change, the coordinator's own record. Changes to a domain
 * are serialised there, so its answer is the truth at the instant the change commits (two users
 * racing for a new domain get one 200 and one 403). A route may ask first with the owner D1
 * holds, to refuse before it reads a body: D1 lags the coordinator only by changes still in
 * flight, so a stale answer can only delay a refusal to the coordinator's check, never let a
 * change through. Reads ask with the coordinator's live record, which reflects every commit.
 */
import { Problem } from '../http/problem';

/** Who is asking. `scopes` are the token's; the coordinator, which sees no token, passes none. */
export interface Requester {
  userId: string;
  scopes?: ReadonlySet<string>;
}

/**
 * - `read`: anyone with `global_read`, or the owner (whose `deploy` scope the route checked).
 * - `change`: the owner of an existing site.
 * - `deploy`: the owner, or anyone when no site exists yet (the first deploy claims the domain).
 */
export type SiteAction = 'read' | 'change' | 'deploy';

/** 404: the domain has no site. */
function siteNotFound(domain: string): Problem {
  return new Problem('site-not-found', `No site is hosted at ${domain}.`);
}

/** 404: no kept deployment `id` of `domain` (never made, still uploading, or collected). */
export function deploymentNotFound(domain: string, id: string): Problem {
  return new Problem('not-found', `${domain} keeps no deployment ${JSON.stringify(id)}.`);
}

/** 403: the first deploy claimed the domain for someone else. */
function ownedByAnotherUser(domain: string): Problem {
  return new Problem('forbidden', `The site ${domain} is owned by another user.`);
}

/** Throws the 404 or 403 unless `requester` may do `action` on `domain`, whose site `owner` owns (null: no site). */
export function authorize(requester: Requester, domain: string, owner: string | null, action: SiteAction): void {
  if (owner === null) {
    if (action === 'deploy') return;
    throw siteNotFound(domain);
  }
  if (owner === requester.userId) return;
  if (action === 'read' && requester.scopes?.has('global_read')) return;
  throw ownedByAnotherUser(domain);
}
