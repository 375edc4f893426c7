/**
 * How an incremental deploy becomes a deployment: its manifest (whole, or a patch of a kept
 * deployment) resolved against the bytes the site stores and those it uploaded, its index
 * written, and the deployment committed, live or as a preview.
 */
import type { DeployResult } from '../../common/api-types';
import { deployLimits } from '../../content/deploy-limits';
import { readWithPending, withSiteRules } from '../../rules/deployment-rules';
import { type Manifest, type ManifestContent, patchedManifest } from '../../content/manifest';
import { checkSiteSize } from '../../content/file-rules';
import { Problem } from '../../http/problem';
import { log } from '../../platform/log';
import type { DeploymentRecord } from '../../storage/deployments-table';
import { type FileIndex, keys } from '../../storage/file-index';
import { deleteObjects } from '../../storage/objects';
import { type SiteRecord, upsertSite } from '../../storage/sites-table';
import type { ManifestCommit } from '../changes';
import { deployResult, indexOfManifest, missingHashes, readyDeployment, siteWith } from '../records/deployment-records';
import type { FollowUp } from '../sweeps/follow-ups';
import { addBaseLocations, addStoredLocations, baseIndex, keptBase } from './manifest-base';
import { configuredRoot } from '../../rules/deployment-rules';
import { configurationChange, previewClaim, type SiteState } from '../commit/site-state';
import { servesAlready, unchangedResult } from './unchanged';

/**
 * Makes `commit.manifest` a ready deployment, live unless a preview; 409 while bytes are missing.
 * The deployment keeps every pack it `uploaded`, though its index may read their bytes from
 * another copy (the site's hashes point at the newest, which a concurrent deploy may have
 * uploaded again): nothing else names them, and its collection frees them.
 */
export async function commitManifest(
  state: SiteState,
  site: SiteRecord | null,
  commit: ManifestCommit,
  followUps: FollowUp[],
  uploaded: readonly string[],
  /** The incremental deploy being finalized, when it was stored as uploading. */
  uploading?: DeploymentRecord,
): Promise<DeployResult | DeploymentRecord> {
  const { domain, userId, deploymentId: id, content, upload } = commit;
  const { DB, FILES } = state.env;
  // The site's deployments: the kept window at the commit is drawn from them, and a patch's base
  // must be one of them (under the lock: only a base still kept vouches for its bytes).
  const listing = state.deployments.all(domain);
  // Awaited below; a failure meanwhile is not an unhandled one.
  listing.catch(() => {});
  const speculative = rememberedBase(state, content);
  let base: FileIndex | null = speculative?.index ?? null;
  let manifest: Manifest;
  if ('patch' in content) {
    const { patch } = content;
    base ??= await baseIndex(domain, patch.base, (await listing).find((kept) => kept.id === patch.base), (key) => state.readIndex(key));
    manifest = patchedManifest(base, patch, deployLimits(state.env));
  } else {
    manifest = content.manifest;
  }
  // A hash stored again points at its newest copy, as recordBlobs keeps it.
  const known = new Map((upload?.blobs ?? []).map((blob) => [blob.hash, blob]));
  addBaseLocations(base, known);
  await state.commits.blobs.moved(domain);
  await addStoredLocations(async (hashes) => state.commits.blobs.known(hashes), manifest.files, known);
  const missing = missingHashes(manifest.files, known);
  if (missing.length > 0) {
    throw new Problem('conflict', `The deployment ${id} still lacks the bytes of ${missing.length} file${missing.length === 1 ? '' : 's'}; upload them first.`, {
      extensions: { missing },
    });
  }
  const now = Date.now();
  // The rules are read before anything is written: a file that cannot be read stores nothing.
  const configuration = manifest.configuration ?? site?.configuration ?? {};
  const index = await withSiteRules(indexOfManifest(manifest, known, id, now, base), readWithPending(FILES, upload), configuredRoot(configuration));
  const totalBytes = index.files.reduce((sum, file) => sum + file.size, 0);
  checkSiteSize(deployLimits(state.env), index.files.length, totalBytes);
  if (!commit.preview && (await servesAlready(state, site, { files: { index }, configuration, labels: commit.labels }))) {
    await dropUnchanged(state, domain, upload, uploading, await listing);
    return unchangedResult(site!, now);
  }
  const indexKey = keys.index(domain, id);
  const [kept, writtenIndex] = await Promise.all([listing, state.writeIndex(indexKey, index), upload?.bytes && FILES.put(upload.pack, upload.bytes)]);
  if (speculative) await vouchFor(state, domain, speculative.id, kept, [indexKey, ...(upload?.bytes ? [upload.pack] : [])]);
  const files = { indexKey, packs: [...new Set([...index.packs, ...uploaded])], fileCount: index.files.length, totalBytes };
  const record = readyDeployment(domain, id, userId, 'incremental', now, files, configuration, commit.labels, commit.preview);
  const written = [writtenIndex, ...(upload ? [{ key: upload.pack, bytes: upload.packBytes }] : [])];
  const blobs = upload?.blobs;
  if (commit.preview) {
    const claim = previewClaim(DB, site, userId, domain, now);
    await state.commitDeployment(record, claim.statements, claim.live, { now: [...claim.now, ...followUps], written, blobs }, kept);
    return record;
  }
  const next = siteWith(site, record, userId, now);
  const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next)];
  const result = deployResult(site, next, true, manifest.configuration !== undefined, record);
  await state.commitDeployment(
    record,
    statements,
    next,
    { now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain } as const]), ...followUps], written, blobs },
    kept,
  );
  return result;
}

/**
 * The index of a patch's base when this object wrote it last: used before the site's
 * deployments say the base is still kept, so that reading them overlaps building and writing
 * the new index; `vouchFor` checks it then.
 */
function rememberedBase(state: SiteState, content: ManifestContent): { id: string; index: FileIndex } | undefined {
  if (!('patch' in content) || state.lastIndex?.index.deploymentId !== content.patch.base) return undefined;
  return { id: content.patch.base, index: state.lastIndex.index };
}

/** Passes when the remembered base is among the site's `deployments` still; else deletes `written` (nothing else holds it) and throws the 409. */
async function vouchFor(state: SiteState, domain: string, baseId: string, deployments: readonly DeploymentRecord[], written: string[]): Promise<void> {
  try {
    keptBase(domain, baseId, deployments.find((kept) => kept.id === baseId));
  } catch (error) {
    await deleteObjects(state.env.FILES, written).catch((deleting: unknown) => log.error('A refused deploy left objects behind', { written, error: deleting }));
    throw error;
  }
}

/**
 * Leaves no trace of a deploy the site served already: the pack its request brought (stored by the
 * Worker, or handed over and not written), or, for an incremental deploy stored as uploading, that
 * deployment, collected at once as its deadline would collect it.
 */
async function dropUnchanged(
  state: SiteState,
  domain: string,
  upload: ManifestCommit['upload'],
  uploading: DeploymentRecord | undefined,
  deployments: readonly DeploymentRecord[],
): Promise<void> {
  if (upload && !upload.bytes) await deleteObjects(state.env.FILES, [upload.pack]);
  if (!uploading) return;
  const freed = state.abandon(domain, uploading, deployments);
  await state.commits.commit(domain, freed.statements, undefined, { now: freed.now, later: freed.later }, freed.stored);
}
