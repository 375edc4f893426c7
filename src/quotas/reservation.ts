/**
 * The coordinator's side of the quotas, authoritative: what a commit adds (a new site, the bytes
 * of the objects it stored) is reserved in D1 under the quotas before its batch, and that batch
 * turns the reservation into the site's row and the bytes added to its byte total (src/storage/usage-ledger.ts).
 * Coordinators of different domains commit for one user at once; D1 decides each reservation
 * against every other, so no interleaving takes a user past MAX_SITES_PER_USER or MAX_USER_BYTES.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { type QuotaClaim, readUsage, release, reserve } from '../storage/usage-ledger';
import { tooManyBytes, tooManySites, userQuotas } from './user-quotas';

/** Reserves `claim`, or throws the 403 of the quota it would exceed; nothing to reserve, undefined. */
export async function reserveQuota(env: Env, claim: QuotaClaim): Promise<string | undefined> {
  if (claim.sites === 0 && claim.bytes === 0) return undefined;
  const quotas = userQuotas(env);
  const id = crypto.randomUUID();
  if (await reserve(env.DB, id, claim, quotas)) return id;
  // Read after the refusal, to name the quota: another change may have moved it meanwhile, never past it.
  const usage = await readUsage(env.DB, claim.userId);
  const sitesOver = claim.sites > 0 && usage.sites + usage.reservedSites + claim.sites > quotas.maxSites;
  throw sitesOver ? tooManySites(quotas, usage) : tooManyBytes(quotas, usage, claim.bytes);
}

/** Gives back a reservation whose change did not commit; failing, it holds its quota until it expires. */
export async function releaseQuota(env: Env, id: string | undefined, userId: string): Promise<void> {
  if (id === undefined) return;
  await release(env.DB, id, userId)
    .run()
    .catch((error: unknown) => log.error('A reservation of quota could not be released; it expires by itself', { id, error }));
}
