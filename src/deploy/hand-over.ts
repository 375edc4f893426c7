import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { siteCoordinator } from '../coordinator/coordinator-client';

/**
 * Has the coordinator take `written` (objects stored for this change alone) into `change`. When
 * the change fails, for whatever reason, the coordinator is asked to discard them: it alone
 * deletes objects, and only those no deployment holds, so a change that committed before its
 * failure (a notification that could not be sent, say) keeps them.
 */
export async function handOver<T>(env: Env, domain: string, written: readonly string[], change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    await discard(env, domain, written);
    throw error;
  }
}

/** Asks `domain`'s coordinator to delete `written`, which no change took; failing, the orphan sweep deletes them later. */
export async function discard(env: Env, domain: string, written: readonly string[]): Promise<void> {
  if (written.length === 0) return;
  await siteCoordinator(env, domain)
    .discard(domain, [...written])
    .catch((error: unknown) => log.error('Objects a failed change wrote could not be discarded; the orphan sweep deletes them', { written, error }));
}
