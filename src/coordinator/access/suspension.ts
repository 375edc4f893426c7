/**
 * An operator's suspension of a site (docs/design.md#operators), as the coordinator commits it:
 * a change like any other, so the live record carries it to every location before it answers
 * (../edge/freshness.ts) and its event is announced exactly once (../commit/commits.ts).
 */
import { Problem } from '../../http/problem';
import { type SiteRecord, type Suspension, setSuspension } from '../../storage/sites-table';
import { getUserSuspension } from '../../storage/user-suspensions';
import type { SiteState } from '../commit/site-state';

/**
 * Suspends `site` for `reason`; a suspended site's reason is replaced, its `since` kept. The
 * same reason again changes nothing and announces nothing. `created`: it was not suspended.
 */
export async function suspend(state: SiteState, site: SiteRecord, reason: string): Promise<{ suspension: Suspension; created: boolean }> {
  if (site.suspension?.reason === reason) return { suspension: site.suspension, created: false };
  const suspension = { reason, since: site.suspension?.since ?? Date.now() };
  const { domain } = site;
  await state.commits.commit(domain, [setSuspension(state.env.DB, domain, suspension)], { ...site, suspension }, {
    now: [{ kind: 'notify', event: { type: 'site-suspend', domain, reason } }],
  });
  return { suspension, created: site.suspension === null };
}

/** Lifts the suspension of `site`: it is served, and its owner may change it, on the next request. 404 when it is not suspended. */
export async function resume(state: SiteState, site: SiteRecord): Promise<void> {
  const { domain } = site;
  if (!site.suspension) throw new Problem('not-found', `The site ${domain} is not suspended.`);
  await state.commits.commit(domain, [setSuspension(state.env.DB, domain, null)], { ...site, suspension: null }, {
    now: [{ kind: 'notify', event: { type: 'site-resume', domain } }],
  });
}

/**
 * Its owner was suspended, or the suspension lifted (src/api/user-suspensions.ts): the live record
 * takes the owner's suspension as D1 holds it now, and is purged from every location before this
 * returns, so the next request anywhere sees it. Purged even when this object just read it from
 * D1: locations may still hold what an earlier instance answered.
 */
export async function refreshOwnerSuspension(state: SiteState, site: SiteRecord | null): Promise<void> {
  if (!site) return;
  const userSuspension = await getUserSuspension(state.env.DB, site.userId);
  await state.live.replace(site.domain, { ...site, userSuspension });
}
