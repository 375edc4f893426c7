/**
 * The room access/ owns who may do what with a site: the one rule (this file), who may claim a
 * domain (./claimant.ts), and the changes to it a site's owner or an operator makes: members and
 * trust (./access-changes.ts), suspensions (./suspension.ts). It imports no other room; its
 * changes take the site's state (../commit/site-state.ts) by type only and write D1 only through
 * that state's commit, never on their own.
 *
 * The one rule for who may do what with a site; every route and the coordinator use it.
 *
 * Which owner to ask about: inside a change, the coordinator's own record. Changes to a domain
 * are serialised there, so its answer is the truth at the instant the change commits (two users
 * racing for a new domain get one 200 and one 403). A route may ask first with the owner D1
 * holds, to refuse before it reads a body: D1 lags the coordinator only by changes still in
 * flight, so a stale answer can only delay a refusal to the coordinator's check, never let a
 * change through. Reads ask with the coordinator's live record, which reflects every commit.
 */
import { type Ceiling, type SiteAction, type SiteRole, capped, roleAllows } from '../../auth/authority';
import { Problem } from '../../http/problem';
import { timestamp } from '../../http/time';
import type { SiteOwner } from '../../storage/sites-table';

/**
 * Who is asking: a user, through a credential of `ceiling` (src/auth/authority.ts). `scopes` are
 * the token's; the coordinator, which sees no token, passes none.
 */
export interface Requester {
  userId: string;
  ceiling: Ceiling;
  /**
   * Whether the credential may claim a domain no site holds (absent: it may not). One limited to
   * sites never does: a claim makes its user the owner, which it was never given, and a site of it
   * unpublished while it lives would otherwise leave it the domain.
   */
  claims?: boolean;
  scopes?: ReadonlySet<string>;
}

/** Who deploys: a user, and whether their credential may claim a domain no site holds (`Requester.claims`). */
export interface Deployer {
  userId: string;
  claims: boolean;
}

/** A change that needs no more than a deployer's role is checked as one: whatever the credential, it is never taken for more. */
export function asDeployer(userId: string, claims = false): Requester {
  return { userId, ceiling: 'deployer', claims };
}

type Suspension = NonNullable<SiteOwner['suspension']>;

/** What a member other than the owner may be (docs/design.md, "Members"). */
export const memberRoles = ['deployer', 'viewer'] as const;
export type MemberRole = (typeof memberRoles)[number];
/** A requester's relation to a site held through its credential: owner, deployer, viewer, or none. */
export type Role = SiteRole | null;
export type { SiteAction };

/**
 * The requester's role on `site`, given its membership (`member`: null when not a member), held
 * through its credential: never more than the credential's ceiling.
 *
 * What each action needs is src/auth/authority.ts's table. Every action but a read is refused
 * while the site's owner is suspended (`refuseSuspendedUser`), a deployer's too; a suspended
 * member is refused by the coordinator, which looks their suspension up with their role
 * (../commit/site-state.ts); a suspended user's claim of a new domain is refused by the same function,
 * since no site record carries the claimant's suspension. What an operator (scope `admin`) does
 * to any site needs only that it exists: see `administer`.
 */
export function roleOf(requester: Requester, site: SiteOwner, member: MemberRole | null): Role {
  return capped(site.userId === requester.userId ? 'owner' : member, requester.ceiling);
}

/** 404: the domain has no site. */
function siteNotFound(domain: string): Problem {
  return new Problem('site-not-found', `No site is hosted at ${domain}.`);
}

/** 403: a credential limited to sites deploys to a domain no site holds, which would claim it. */
function claimRefused(domain: string): Problem {
  return new Problem(
    'forbidden',
    `No site is hosted at ${domain}, and this credential (a CI identity, or a token limited to sites) cannot claim the domain: a first deploy makes its user the owner, which the credential was not given. Deploy with your own credentials to claim it.`,
  );
}

/** 404: no kept deployment `id` of `domain` (never made, still uploading, or collected). */
export function deploymentNotFound(domain: string, id: string): Problem {
  return new Problem('not-found', `${domain} keeps no deployment ${JSON.stringify(id)}.`);
}

/** 403: the site is someone else's, and the requester's role on it (if any) does not allow `action`. */
function refused(domain: string, role: Role, action: SiteAction, ownerCapped: boolean): Problem {
  if (role === null) return new Problem('forbidden', `The site ${domain} is owned by another user.`);
  const what = action === 'change' || action === 'deploy' ? 'change it' : 'unpublish it, manage its members or see and set its trust policy';
  const through = ownerCapped ? ' through this credential (a CI identity, or a token limited to sites without role "owner", acts as a deployer at most)' : '';
  return new Problem('forbidden', `You are a ${role} of ${domain}${through}: only its owner may ${what}.`, { extensions: { role } });
}

/** 403: an operator suspended the user, who claims and changes nothing until it is lifted; they see why. */
function userSuspended(userId: string, suspension: Suspension): Problem {
  return new Problem(
    'user-suspended',
    `The user ${userId} is suspended by the service's operator: their sites are not served, and they can claim or change nothing until the suspension is lifted. Reason: ${suspension.reason}`,
    { extensions: { reason: suspension.reason, since: timestamp(suspension.since) } },
  );
}

/** Throws the 403 `user-suspended` when `suspension` (the requester's own, null: none) holds: for a claim, which no site record tells. */
export function refuseSuspendedUser(userId: string, suspension: Suspension | null): void {
  if (suspension) throw userSuspended(userId, suspension);
}

/** 403: an operator suspended the site; its owner sees why. */
function suspended(domain: string, suspension: Suspension): Problem {
  return new Problem('site-suspended', `The site ${domain} is suspended by the service's operator and cannot be changed until the suspension is lifted. Reason: ${suspension.reason}`, {
    extensions: { reason: suspension.reason, since: timestamp(suspension.since) },
  });
}

/**
 * Throws the 404 or 403 unless `requester` may do `action` on `domain`, whose site is `site`
 * (null: none) and of which the requester is the member `member` (null: not one; look it up with
 * storage/members-table.ts `memberRole` unless the requester owns the site).
 */
export function authorize(requester: Requester, domain: string, site: SiteOwner | null, action: SiteAction, member: MemberRole | null = null): void {
  if (site === null) {
    if (action !== 'deploy') throw siteNotFound(domain);
    if (!requester.claims) throw claimRefused(domain);
    return;
  }
  const role = roleOf(requester, site, member);
  const reads = action === 'read' || action === 'read-own';
  if (roleAllows(role, action)) {
    if (reads) return;
    refuseSuspendedUser(site.userId, site.userSuspension);
    if (site.suspension) throw suspended(domain, site.suspension);
    return;
  }
  if (reads && requester.scopes?.has('global_read')) return;
  throw refused(domain, role, action, site.userId === requester.userId && role !== 'owner');
}

/** Throws the 404 unless `domain` has a site, for an operator's change to it (the route checked the `admin` scope). */
export function administer<Site extends SiteOwner>(domain: string, site: Site | null): Site {
  if (site === null) throw siteNotFound(domain);
  return site;
}
