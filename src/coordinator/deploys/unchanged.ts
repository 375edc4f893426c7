/**
 * A live deploy that would serve what the site serves already makes no deployment: a CI job that
 * deploys on every push does not push real deployments out of the kept window, and says so.
 */
import type { DeployResult } from '../../common/api-types';
import type { DeploymentLabels } from '../../content/label-checks';
import { timestamp } from '../../http/time';
import type { DeploymentRecord } from '../../storage/deployments-table';
import type { FileIndex } from '../../storage/file-index';
import type { SiteRecord } from '../../storage/sites-table';
import { sameConfiguration } from '../records/deployment-records';
import type { SiteState } from '../commit/site-state';

/** What a live deploy would make live: its files (an index, or the key of one; undefined: the live files), host options and labels. */
export interface LiveDeploy {
  files?: { index: FileIndex } | { indexKey: string; fileCount: number; totalBytes: number };
  configuration: Record<string, unknown>;
  labels: DeploymentLabels;
}

/**
 * Whether `next` would serve what `site` serves: the same paths with the same content and type,
 * the same host options, and no alias but the live deployment's. A message alone is no change.
 * `deployments`, when the change read them, spare reading the live one's alias.
 */
export async function servesAlready(state: SiteState, site: SiteRecord | null, next: LiveDeploy, deployments?: readonly DeploymentRecord[]): Promise<boolean> {
  const liveId = site?.liveDeploymentId;
  if (!site || !liveId || !sameConfiguration(site.configuration, next.configuration)) return false;
  if (next.labels.alias !== null) {
    const live = deployments?.find((kept) => kept.id === liveId) ?? (await state.deployments.get(site.domain, liveId));
    if (live?.alias !== next.labels.alias) return false;
  }
  if (next.files === undefined) return true;
  const counts = 'index' in next.files ? { fileCount: next.files.index.files.length, totalBytes: totalBytesOf(next.files.index) } : next.files;
  // Told apart by their counts almost always: the indexes are read only when those agree.
  if (counts.fileCount !== (site.deployment?.fileCount ?? 0) || counts.totalBytes !== (site.deployment?.totalBytes ?? 0)) return false;
  const [index, live] = await Promise.all(['index' in next.files ? next.files.index : state.readIndex(next.files.indexKey), state.liveIndex(site)]);
  return index.files.every((file, at) => {
    const other = live.files[at];
    return file.path === other?.path && file.hash === other.hash && file.contentType === other.contentType;
  });
}

function totalBytesOf(index: FileIndex): number {
  return index.files.reduce((sum, file) => sum + file.size, 0);
}

/** The answer of a deploy `site` serves already: no deployment, no event; its live one named, as of `now`. */
export function unchangedResult(site: SiteRecord, now: number): DeployResult {
  return {
    type: 'site-deploy',
    domain: site.domain,
    isNewDomain: false,
    hasNewFiles: false,
    hasNewConfiguration: false,
    deploymentId: site.liveDeploymentId!,
    committedAt: timestamp(now),
    unchanged: true,
  };
}
