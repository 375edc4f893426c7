/**
 * MAX_UNFINISHED_DEPLOYMENTS: a site holds at most that many incremental deploys still uploading
 * (begun, not finalized, before their deadline), each with its manifest and the packs it uploaded
 * so far. One more is refused with a 429 until one is finalized or collected at its deadline.
 * Decided by the coordinator, which alone writes its site's deployments (docs/design.md, "Capacity").
 */
import { Problem } from '../../http/problem';
import { log } from '../../platform/log';
import { retryAfterSeconds } from '../../quotas/user-quotas';
import type { DeploymentRecord } from '../../storage/deployments-table';
import { abandonedIncrementalMs, deadlineOf } from '../records/kept-window';
import type { SiteState } from '../commit/site-state';
import { discardUnheld } from './uploaded-objects';

/** Stores the uploading `record`, or deletes its manifest and throws the 429 when its site holds `max` already. */
export async function storeUploading(state: SiteState, record: DeploymentRecord, max: number): Promise<void> {
  const { domain } = record;
  const since = record.created - abandonedIncrementalMs;
  if (await state.deployments.storeUploading(domain, record, max, since)) return;
  const manifest = [record.manifestKey!];
  await discardUnheld(state, domain, manifest).catch((error: unknown) => log.error('A refused manifest could not be deleted; the orphan sweep deletes it', { manifest, error }));
  const oldest = state.deployments.oldestUploading(since) ?? record.created;
  const retryAfter = retryAfterSeconds(deadlineOf(oldest) - Date.now());
  throw new Problem(
    'rate-limited',
    `${domain} has ${max} incremental deploys still uploading, as many as it may: finalize one, or begin again once the oldest is collected in ${retryAfter} s (MAX_UNFINISHED_DEPLOYMENTS is ${max}).`,
    { extensions: { limit: 'MAX_UNFINISHED_DEPLOYMENTS', value: max }, headers: { 'retry-after': String(retryAfter) } },
  );
}
