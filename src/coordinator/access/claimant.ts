/**
 * Who may claim a domain that has no site: not a suspended user (no site record carries the
 * claimant's suspension, so it is read here, for claims only), and, with DOMAIN_PROOF=dns, only
 * one whose DNS proves control (src/domains/claim.ts). The Worker asks before it reads a
 * deploy's body; the coordinator again as it commits the claim.
 */
import { checkClaim } from '../../domains/claim';
import type { Env } from '../../platform/env';
import { getUserSuspension } from '../../storage/user-suspensions';
import { refuseSuspendedUser } from './access';

export async function checkClaimant(env: Env, domain: string, userId: string): Promise<void> {
  refuseSuspendedUser(userId, await getUserSuspension(env.DB, userId));
  await checkClaim(env, domain, userId);
}
