/**
 * How the coordinator records the blobs an incremental deploy's request uploaded into a pack: the
 * deployment keeps the pack, and later manifests find its blobs. Requests that send the same blobs
 * at once each store them; the coordinator, under its lock, keeps each blob once: a pack that
 * brings nothing new is deleted, and one that brings some blobs the site stores meanwhile is
 * copied without them. So what is counted is what is stored, once. The pack is recorded as a
 * change is committed (../commit/commits.ts): its deployment's row, its blobs and its bytes at once.
 */
import { deployLimits, limitExceeded } from '../../content/deploy-limits';
import { releaseQuota, reserveQuota } from '../../quotas/reservation';
import type { BlobLocation } from '../../storage/deployments-table';
import { keys } from '../../storage/file-index';
import { deleteObjects } from '../../storage/objects';
import { release } from '../../storage/usage-ledger';
import { asDeployer, authorize } from '../access/access';
import type { BlobUpload } from '../changes';
import { uploadingDeployment } from '../records/deployment-records';
import type { SiteState } from '../commit/site-state';

/** A pack as kept: its key, its size, and where its blobs lie in it. */
interface KeptPack {
  pack: string;
  bytes: number;
  blobs: BlobLocation[];
}

/**
 * Records `upload` for its deployment. Every pack a deployment keeps counts against
 * MAX_TOTAL_BYTES (413, and the pack goes), however many requests sent them, and against its
 * user's MAX_USER_BYTES.
 */
export async function recordBlobUpload(state: SiteState, upload: BlobUpload): Promise<void> {
  const { domain, userId } = upload;
  const { DB, FILES } = state.env;
  const site = await state.load(domain);
  authorize(asDeployer(userId, upload.claims), domain, site, 'deploy', await state.memberOf(site, userId));
  // A member's upload counts against the owner.
  const owner = site?.userId ?? userId;
  const uploading = uploadingDeployment(await state.deployments.get(domain, upload.deploymentId), domain, upload.deploymentId, userId);
  await state.claimUpload(domain, [upload.pack], [upload.pack]);
  const kept = await keptPack(state, upload);
  if (!kept) return;
  // A copy this object made is its own to delete; the request's pack the Worker discards.
  const copied = kept.pack === upload.pack ? [] : [kept.pack];
  let reservation: string | undefined;
  try {
    const limits = deployLimits(state.env);
    const uploaded = state.commits.objects.bytes(uploading.packs) + kept.bytes;
    if (uploaded > limits.maxTotalBytes) {
      throw limitExceeded(limits, 'maxTotalBytes', `The blobs uploaded for the deployment ${uploading.id} would store ${uploaded} bytes`);
    }
    reservation = await reserveQuota(state.env, { userId: owner, sites: 0, bytes: kept.bytes });
  } catch (error) {
    await deleteObjects(FILES, copied);
    throw error;
  }
  // Its deadline collects the pack with it; recorded again for a deployment begun before deadlines were.
  state.commits.deadlines.record(domain, uploading.id, uploading.created);
  try {
    const released = reservation ? [release(DB, reservation, owner)] : [];
    // Kept by its deployment, its blobs known and its bytes counted as one change: all of it or none, across a stop.
    await state.commits.commit(domain, released, undefined, { now: [], orphans: copied }, {
      record: kept.blobs,
      store: { userId: owner, objects: [{ key: kept.pack, bytes: kept.bytes }] },
      deployment: { ...uploading, packs: [...uploading.packs, kept.pack] },
    });
  } catch (error) {
    await releaseQuota(state.env, reservation, owner);
    throw error;
  }
}

/**
 * The pack to keep of `upload`: the request's own when every blob in it is new to the site; none
 * (deleted) when none is; else a copy of the new ones alone, the request's pack deleted.
 */
async function keptPack(state: SiteState, upload: BlobUpload): Promise<KeptPack | undefined> {
  const { FILES } = state.env;
  await state.commits.moved(upload.domain);
  const known = state.commits.blobs.known(upload.blobs.map((blob) => blob.hash));
  const fresh = upload.blobs.filter((blob) => !known.has(blob.hash));
  if (fresh.length === upload.blobs.length) return { pack: upload.pack, bytes: upload.packBytes, blobs: fresh };
  const kept = fresh.length === 0 ? undefined : await copyBlobs(FILES, keys.pack(upload.domain, crypto.randomUUID()), upload.pack, fresh);
  await deleteObjects(FILES, [upload.pack]);
  return kept;
}

/** Copies `blobs` of the pack `from` into a new pack `key`, one ranged read after another, streamed: memory holds no blob whole. */
async function copyBlobs(bucket: R2Bucket, key: string, from: string, blobs: readonly BlobLocation[]): Promise<KeptPack> {
  let bytes = 0;
  const moved = blobs.map((blob) => {
    const at = { ...blob, pack: key, offset: bytes };
    bytes += blob.size;
    return at;
  });
  const { readable, writable } = new FixedLengthStream(bytes);
  const stored = bucket.put(key, readable);
  // Surfaces when awaited below; a failed copy aborts the stream, and the put fails with it.
  stored.catch(() => {});
  try {
    for (const blob of blobs) {
      const range = await bucket.get(from, { range: { offset: blob.offset, length: blob.size } });
      if (!range) throw new Error(`The pack ${from} is gone while its blobs were copied.`);
      await range.body.pipeTo(writable, { preventClose: true });
    }
    await writable.close();
  } catch (error) {
    await writable.abort(error);
    throw error;
  }
  await stored;
  return { pack: key, bytes, blobs: moved };
}
