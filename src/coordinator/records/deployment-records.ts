/**
 * The coordinator's pure helpers for deployments: the record a change makes, the answer of a
 * change that goes live, and the index an incremental deploy's manifest resolves to.
 */
import equal from 'fast-deep-equal';
import { contentTypeOf } from '../../content/content-type';
import { emptyHash, hashToHex, type Manifest, type ManifestFile } from '../../content/manifest';
import type { Env } from '../../platform/env';
import { Problem } from '../../http/problem';
import { timestamp } from '../../http/time';
import type { DeployResult } from '../../common/api-types';
import type { DeploymentLabels } from '../../content/label-checks';
import { settingsOf } from '../../platform/settings';
import { type BlobLocation, type DeploymentRecord, type DeploymentSource } from '../../storage/deployments-table';
import { type FileEntry, type FileIndex } from '../../storage/file-index';
import type { Deployment, SiteRecord } from '../../storage/sites-table';
import type { KeptWindow } from './kept-window';

export function keptWindowOf(env: Env): KeptWindow {
  const { deploymentsKept, deploymentsKeptDays } = settingsOf(env);
  return { kept: deploymentsKept, keptDays: deploymentsKeptDays };
}

/**
 * A ready deployment of `files` (null: none) and `configuration`, made by `createdBy` at `created`
 * with `labels`; a `preview` when it does not go live as it is made.
 */
export function readyDeployment(
  domain: string,
  id: string,
  createdBy: string,
  source: DeploymentSource,
  created: number,
  files: Pick<Deployment, 'indexKey' | 'packs' | 'fileCount' | 'totalBytes'> | null,
  configuration: Record<string, unknown>,
  labels: DeploymentLabels,
  preview = false,
): DeploymentRecord {
  return {
    ...labels,
    preview,
    id,
    domain,
    created,
    createdBy,
    source,
    state: 'ready',
    fileCount: files?.fileCount ?? 0,
    totalBytes: files?.totalBytes ?? 0,
    indexKey: files?.indexKey ?? null,
    packs: files?.packs ?? [],
    configuration,
    manifestKey: null,
    liveUntil: null,
  };
}

/** The site's live files as the deployment `record` holds them. */
function liveFilesOf(record: DeploymentRecord): Deployment | null {
  if (record.indexKey === null) return null;
  const { id, created, indexKey, packs, fileCount, totalBytes } = record;
  return { id, created, indexKey, packs, fileCount, totalBytes };
}

/** Whether two host options are the same, whatever the order of their members. */
export function sameConfiguration(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return equal(a, b);
}

/** The order deployments are listed and kept in: newest first, ties by id. */
export function newestFirst(a: DeploymentRecord, b: DeploymentRecord): number {
  return b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** The site `previous` (null: none yet) with `record` live, committed at `now`. */
export function siteWith(previous: SiteRecord | null, record: DeploymentRecord, userId: string, now: number): SiteRecord {
  const configurationChanged = !previous || !sameConfiguration(previous.configuration, record.configuration);
  return {
    domain: record.domain,
    userId: previous?.userId ?? userId,
    created: previous?.created ?? now,
    modified: now,
    configuration: record.configuration,
    configurationModified: configurationChanged ? now : previous.configurationModified,
    metadata: previous?.metadata ?? {},
    liveDeploymentId: record.id,
    deployment: liveFilesOf(record),
    suspension: previous?.suspension ?? null,
    userSuspension: previous?.userSuspension ?? null,
  };
}

/** The labels `record` was given when it was made (an incremental deploy's, while it uploaded). */
export function labelsOfRecord(record: DeploymentRecord): DeploymentLabels {
  return { message: record.message, client: record.client ?? 'api', alias: record.alias, aliasLabel: record.aliasLabel, provenance: record.provenance ?? null };
}

/** The answer of a change that made `next` live, replacing `previous`; also its `site-deploy` event. */
export function deployResult(previous: SiteRecord | null, next: SiteRecord, hasNewFiles: boolean, hasNewConfiguration: boolean, live: DeploymentRecord): DeployResult {
  return {
    type: 'site-deploy',
    domain: next.domain,
    isNewDomain: !previous,
    hasNewFiles,
    hasNewConfiguration,
    deploymentId: next.liveDeploymentId!,
    committedAt: timestamp(next.modified),
    ...(live.provenance ? { provenance: live.provenance } : {}),
  };
}

/** `record`, read as the incremental deploy `id` of `domain`, when it is still uploading and `userId` began it; else a 404. */
export function uploadingDeployment(record: DeploymentRecord | null, domain: string, id: string, userId: string): DeploymentRecord {
  if (record?.state !== 'uploading' || record.createdBy !== userId) {
    throw new Problem('not-found', `${domain} has no incremental deploy ${JSON.stringify(id)} of yours still receiving bytes.`);
  }
  return record;
}

/** The hashes of `files` whose bytes are neither stored (`known`) nor empty, in hex, once each. */
export function missingHashes(files: readonly ManifestFile[], known: ReadonlyMap<string, BlobLocation>): string[] {
  const missing = new Set<string>();
  for (const file of files) if (file.hash !== emptyHash && !known.has(file.hash)) missing.add(hashToHex(file.hash));
  return [...missing];
}

/**
 * The index of `manifest`'s files at the `known` locations of their bytes; every hash must be
 * known or empty. A file its `base` holds with the same content keeps its time
 * (`Last-Modified`); any other is new as of `now`. A path the base holds keeps its type.
 */
export function indexOfManifest(manifest: Manifest, known: ReadonlyMap<string, BlobLocation>, deploymentId: string, now: number, base: FileIndex | null = null): FileIndex {
  const packs: string[] = [];
  const packNumbers = new Map<string, number>();
  const before = new Map(base?.files.map((file) => [file.path, file]));
  const files = manifest.files.map((file): FileEntry => {
    const blob = known.get(file.hash);
    const previous = before.get(file.path);
    const modified = previous?.hash === file.hash ? previous.modified : now;
    const entry = { path: file.path, hash: file.hash, contentType: previous?.contentType ?? contentTypeOf(file.path), modified };
    if (file.hash === emptyHash || !blob) return { ...entry, pack: 0, offset: 0, size: 0 };
    let pack = packNumbers.get(blob.pack);
    if (pack === undefined) {
      pack = packs.push(blob.pack) - 1;
      packNumbers.set(blob.pack, pack);
    }
    return { ...entry, pack, offset: blob.offset, size: blob.size };
  });
  return { deploymentId, created: now, packs, files };
}
