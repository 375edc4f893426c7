import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { log } from '../platform/log';
import { deleteObjects } from '../storage/objects';

/**
 * Has the coordinator take `written` (objects stored for this change alone) into `change`. Only a
 * refusal (a Problem) is known to leave them unused, and then they are deleted. When the call
 * throws otherwise, the change may have happened before the failure (a notification that could
 * not be sent, say): they are kept, since they may be the live site's, and go with their
 * deployment, or the site, at worst. A failed deletion is logged: the refusal is the answer.
 */
export async function handOver<T>(env: Env, written: readonly string[], change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof Problem && written.length > 0) {
      await deleteObjects(env.FILES, written).catch((deleting: unknown) => log.error('A refused change left objects behind', { written, error: deleting }));
    }
    throw error;
  }
}
