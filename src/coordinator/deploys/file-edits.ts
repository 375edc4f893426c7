/**
 * One file added, replaced or removed: a new deployment whose index shares every other file's
 * stored bytes with the live one.
 */
import type { DeploymentClient } from '../../common/deployment-labels';
import { unlabelled } from '../../content/label-checks';
import { deployLimits } from '../../content/deploy-limits';
import { readFromBucket, withEditedRules } from '../../rules/deployment-rules';
import { checkFilesAndFolders, checkSiteSize } from '../../content/file-rules';
import { Problem } from '../../http/problem';
import { log } from '../../platform/log';
import type { BlobLocation } from '../../storage/deployments-table';
import { type FileEntry, type FileIndex, keys, withFile, withoutFile } from '../../storage/file-index';
import { deleteObjects } from '../../storage/objects';
import { type SiteRecord, upsertSite } from '../../storage/sites-table';
import type { FileUpload } from '../changes';
import { newDeploymentId } from '../records/deployment-id';
import { readyDeployment, siteWith } from '../records/deployment-records';
import type { SiteEvent } from '../sweeps/follow-ups';
import { configuredRoot } from '../../rules/deployment-rules';
import type { SiteState } from '../commit/site-state';

/**
 * Adds or replaces one file. Content the site stores already is not stored twice: the file
 * points at the stored copy, and the uploaded pack goes. The same content and type at the same
 * path changes nothing, so a script that sends every file on every run leaves the history as it is.
 */
export async function putFile(state: SiteState, site: SiteRecord, userId: string, upload: FileUpload, client: DeploymentClient): Promise<{ created: boolean; entry: FileEntry }> {
  const { domain } = site;
  const index = await state.liveIndex(site);
  const { path, hash, size } = upload.entry;
  const previous = index.files.find((file) => file.path === path);
  if (previous && previous.hash === hash && previous.contentType === upload.entry.contentType) {
    await dropUnusedPack(state, upload.packKey);
    return { created: false, entry: previous };
  }
  checkFilesAndFolders(new Set([...index.files.map((file) => file.path), path]));
  const totalBytes = (site.deployment?.totalBytes ?? 0) - (previous?.size ?? 0) + size;
  checkSiteSize(deployLimits(state.env), index.files.length + (previous ? 0 : 1), totalBytes);
  // Under the lock a hash's row names a pack that a kept deployment holds, and the new one will.
  await state.commits.blobs.moved(domain);
  const stored = upload.packKey ? state.commits.blobs.known([hash]).get(hash) : undefined;
  const newPack = stored ? null : upload.packKey;
  const now = Date.now();
  const entry = stored ? { ...upload.entry, offset: stored.offset } : upload.entry;
  const next = await withEditedRules(index, withFile(index, entry, stored?.pack ?? newPack, newDeploymentId(), now), path, readFromBucket(state.env.FILES), configuredRoot(site.configuration));
  const blobs = newPack ? [{ hash, pack: newPack, offset: upload.entry.offset, size }] : [];
  await switchFiles(state, site, { userId, client, source: 'file-put' }, next, now, blobs, {
    type: 'files-update',
    domain,
    path,
    change: previous ? 'replaced' : 'added',
    deploymentId: next.deploymentId,
  });
  if (stored) await dropUnusedPack(state, upload.packKey);
  return { created: !previous, entry: next.files.find((file) => file.path === path)! };
}

export async function deleteFile(state: SiteState, site: SiteRecord, userId: string, path: string, client: DeploymentClient): Promise<void> {
  const { domain } = site;
  const index = await state.liveIndex(site);
  if (!index.files.some((file) => file.path === path)) {
    throw new Problem('not-found', `There is no file ${JSON.stringify(path)} on ${domain}.`);
  }
  const now = Date.now();
  const next = await withEditedRules(index, withoutFile(index, path, newDeploymentId(), now), path, readFromBucket(state.env.FILES), configuredRoot(site.configuration));
  await switchFiles(state, site, { userId, client, source: 'file-delete' }, next, now, [], {
    type: 'files-update',
    domain,
    path,
    change: 'deleted',
    deploymentId: next.deploymentId,
  });
}

/** Deletes an uploaded pack no deployment names; one left by a failure goes with the site at worst. */
export async function dropUnusedPack(state: SiteState, packKey: string | null): Promise<void> {
  if (packKey) await deleteObjects(state.env.FILES, [packKey]).catch((error: unknown) => log.error('An unused pack was left behind', { packKey, error }));
}

/** Makes `index` the site's new live deployment, made by `by`, and announces `event`; `blobs` are the bytes this change added, each alone in its pack. */
async function switchFiles(
  state: SiteState,
  site: SiteRecord,
  by: { userId: string; client: DeploymentClient; source: 'file-put' | 'file-delete' },
  index: FileIndex,
  now: number,
  blobs: BlobLocation[],
  event: SiteEvent,
): Promise<void> {
  const indexKey = keys.index(site.domain, index.deploymentId);
  const writtenIndex = await state.writeIndex(indexKey, index);
  const files = {
    indexKey,
    packs: index.packs,
    fileCount: index.files.length,
    totalBytes: index.files.reduce((sum, file) => sum + file.size, 0),
  };
  const record = readyDeployment(site.domain, index.deploymentId, by.userId, by.source, now, files, site.configuration, unlabelled(by.client));
  const next = siteWith(site, record, by.userId, now);
  const { DB } = state.env;
  await state.commitDeployment(record, [upsertSite(DB, next)], next, {
    now: [{ kind: 'notify', event }],
    written: [writtenIndex, ...blobs.map((blob) => ({ key: blob.pack, bytes: blob.size }))],
    blobs,
  });
}
