/**
 * The rules of a deployment are those of its served root (the `root` host option): when the
 * files and the host options that pair in a new deployment name another root than the one its
 * index's rules were read under, the rules files are read again.
 */
import { readFromBucket, rulesRootOf, withSiteRules } from '../../rules/deployment-rules';
import { keys } from '../../storage/file-index';
import type { Deployment } from '../../storage/sites-table';
import type { StoredObject } from '../../storage/usage-ledger';
import type { DeployCommit } from '../changes';
import type { SiteState } from '../commit/site-state';

/**
 * The index at `indexKey` with the rules of `root`, written at `key` (the same key for an index
 * nothing names yet, a new one for a new deployment of live files); undefined when its rules are
 * that root's already. A rules file that cannot be read refuses the change, as a deploy's does.
 */
async function reindexForRoot(state: SiteState, indexKey: string, root: string, key: string, deploymentId: string): Promise<StoredObject | undefined> {
  const index = await state.readIndex(indexKey);
  if (rulesRootOf(index) === root) return undefined;
  const next = await withSiteRules({ ...index, deploymentId }, readFromBucket(state.env.FILES), root);
  return state.writeIndex(key, next);
}

/**
 * `files` with the rules of `root`: the deploy's own index (`own`) rewritten in place, its
 * `written` size updated, or live files under a new index (`written`) when a new root reads
 * other rules files.
 */
export async function filesForRoot<F extends Omit<Deployment, 'created' | 'id'>>(
  state: SiteState,
  domain: string,
  id: string,
  files: F | null,
  root: string,
  own?: DeployCommit['files'],
): Promise<{ files: F | null; written?: StoredObject }> {
  if (!files) return { files };
  const key = own ? files.indexKey : keys.index(domain, id);
  const written = await reindexForRoot(state, files.indexKey, root, key, id);
  if (!written) return { files };
  if (own) own.written = own.written.map((object) => (object.key === key ? written : object));
  return { files: { ...files, indexKey: key }, written: own ? undefined : written };
}
