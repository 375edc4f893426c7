/**
 * MAX_UNFINISHED_DEPLOYMENTS: a site holds at most that many incremental deploys still uploading
 * (begun, not finalized, before their deadline), each with its manifest and the packs it uploaded
 * so far. One more is refused with a 429 until one is finalized or collected at its deadline.
 */
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { settingsOf } from '../platform/settings';
import { abandonedIncrementalMs, deadlineOf } from '../coordinator/kept-window';
import { type DeploymentRecord, insertUploading, oldestUploading } from '../storage/deployments-table';
import { discard } from './hand-over';
import { retryAfterSeconds } from '../quotas/user-quotas';

/** Stores the uploading `record`, or has its manifest discarded and throws the 429 when its site holds as many as it may. */
export async function storeUploading(env: Env, record: DeploymentRecord): Promise<void> {
  const max = settingsOf(env).maxUnfinishedDeployments;
  const since = record.created - abandonedIncrementalMs;
  if (await insertUploading(env.DB, record, max, since)) return;
  await discard(env, record.domain, [record.manifestKey!]);
  const oldest = (await oldestUploading(env.DB, record.domain, since)) ?? record.created;
  const retryAfter = retryAfterSeconds(deadlineOf(oldest) - Date.now());
  throw new Problem(
    'rate-limited',
    `${record.domain} has ${max} incremental deploys still uploading, as many as it may: finalize one, or begin again once the oldest is collected in ${retryAfter} s (MAX_UNFINISHED_DEPLOYMENTS is ${max}).`,
    { extensions: { limit: 'MAX_UNFINISHED_DEPLOYMENTS', value: max }, headers: { 'retry-after': String(retryAfter) } },
  );
}
