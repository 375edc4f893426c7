/**
 * Who may reach a site besides its owner (members) and which GitHub Actions jobs may deploy it
 * (its trust policy), as the coordinator commits them: changes like any other, serialised with
 * the site's deploys and its unpublish, so that no member or policy outlives the site it was
 * given on, and each is announced once.
 */
import { Problem } from '../../http/problem';
import { type MemberRecord, deleteMember, memberRole, membersOf, putMember } from '../../storage/members-table';
import { type GithubTrust, type StoredTrust, deleteTrustOf, getTrust, putTrust } from '../../storage/trust-table';
import type { MemberRole, Requester } from './access';
import type { SiteState } from '../commit/site-state';

/** A site has at most this many members besides its owner (a 403 past it names the limit). */
export const maxMembersPerSite = 100;

export type AccessChange =
  | { kind: 'member-put'; userId: string; role: MemberRole }
  | { kind: 'member-remove'; userId: string }
  | { kind: 'trust-put'; trust: GithubTrust }
  | { kind: 'trust-remove' };

/** What a change answers: the member or policy as stored and whether it is new; null for a removal. */
export type AccessAnswer = { member: MemberRecord; created: boolean } | { trust: StoredTrust; created: boolean } | null;

/** Commits `change` to `domain`, which `requester` owns through a credential that may act as its owner (checked here, under the coordinator's lock). */
export async function changeAccess(state: SiteState, domain: string, requester: Requester, change: AccessChange): Promise<AccessAnswer> {
  const site = await state.changeable(domain, requester, 'own');
  const { DB } = state.env;
  const commit = (statement: D1PreparedStatement, event: Parameters<SiteState['commits']['commit']>[3]['now'][number]) =>
    state.commits.commit(domain, [statement], undefined, { now: [event] });
  switch (change.kind) {
    case 'member-put': {
      if (change.userId === site.userId) {
        throw new Problem('invalid-request', `${change.userId} owns ${domain}: the owner is not added as a member.`);
      }
      const previous = await memberRole(DB, domain, change.userId);
      if (previous === change.role) return { member: (await membersOf(DB, domain)).find((member) => member.userId === change.userId)!, created: false };
      if (previous === null && (await membersOf(DB, domain)).length >= maxMembersPerSite) {
        throw new Problem('quota-exceeded', `${domain} has ${maxMembersPerSite} members, as many as a site may: remove one first.`, {
          extensions: { limit: 'MAX_MEMBERS_PER_SITE', value: maxMembersPerSite },
        });
      }
      const member = { userId: change.userId, role: change.role, added: Date.now() };
      await commit(putMember(DB, domain, member), { kind: 'notify', event: { type: 'member-add', domain, userId: member.userId, role: member.role } });
      return { member, created: previous === null };
    }
    case 'member-remove': {
      if ((await memberRole(DB, domain, change.userId)) === null) throw new Problem('not-found', `${change.userId} is not a member of ${domain}.`);
      await commit(deleteMember(DB, domain, change.userId), { kind: 'notify', event: { type: 'member-remove', domain, userId: change.userId } });
      return null;
    }
    case 'trust-put': {
      const previous = await getTrust(DB, domain);
      const trust = { ...change.trust, domain, modified: Date.now() };
      await commit(putTrust(DB, trust), { kind: 'notify', event: { type: 'trust-change', domain, provider: 'github', policy: change.trust } });
      return { trust, created: previous === null };
    }
    case 'trust-remove': {
      if ((await getTrust(DB, domain)) === null) throw new Problem('not-found', `${domain} has no GitHub trust policy.`);
      await commit(deleteTrustOf(DB, domain), { kind: 'notify', event: { type: 'trust-change', domain, provider: 'github', policy: null } });
      return null;
    }
  }
}
