/**
 * Which claim of a domain a change was made for, and what of its follow-ups an operator's replay
 * may still do once the domain is another claim's. A domain unpublished and claimed again (by
 * anyone, its former owner too) is another claim: its certificate, custom hostname and events are
 * the new site's, and a dead letter written for the old one must not touch them.
 */
import type { ClaimedSite } from '../../storage/sites-table';
import type { FollowUp } from './follow-ups';

/** The claim `site` is: its owner and when they claimed the domain; null for no site. */
export function claimOf(site: Pick<ClaimedSite, 'userId' | 'created'> | null | undefined): string | null {
  return site ? `${site.userId}@${site.created}` : null;
}

/**
 * Whether a follow-up replayed from the dead letters, written for the claim `written` (undefined:
 * kept before follow-ups named theirs), may still run while `current` holds the domain. An
 * unpublish's announcement runs only while no site holds the domain (after a new claim's deploy it
 * would say the new site is gone); any other event, and a certificate's issue, only for their own
 * claim. Forgetting a certificate is decided by its own rule at every attempt (./follow-ups.ts); deletions and purges
 * spare what the site holds now, and run.
 */
export function replayable(work: FollowUp, written: string | null | undefined, current: string | null): boolean {
  const sameClaim = current !== null && (written === undefined || written === current);
  if (work.kind === 'notify') return work.event.type === 'site-delete' ? current === null : sameClaim;
  if (work.kind === 'issue-certificate') return sameClaim;
  return true;
}
