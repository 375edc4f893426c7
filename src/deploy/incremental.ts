/**
 * Incremental deploys, the Worker's half: the manifest is stored and answered with the hashes the
 * site lacks (one D1 query for any number of files), and uploaded blobs are streamed into one pack
 * per request, each verified against its name. What arrived whole and verified is recorded even
 * when the request fails later, so a client resumes by asking again what is missing. The
 * coordinator records the blobs and, on finalize, builds the deployment (src/site/coordinator.ts).
 */
import type { Env } from '../env';
import { jsonTooLarge, maxJsonBytes, readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { log } from '../log';
import { authorize } from '../site/access';
import { siteCoordinator, uploadRecord } from '../site/client';
import { newDeploymentId } from '../site/deployment-id';
import { missingHashes, uploadingDeployment } from '../site/deployments';
import { checkFileSize, checkSiteSize } from '../site/file-rules';
import { type BlobLocation, type DeploymentRecord, knownBlobs, putDeployment } from '../storage/deployments';
import { keys } from '../storage/file-index';
import { PackWriter, packPartSize } from '../storage/pack-writer';
import { getSiteOwner } from '../storage/sites';
import { type DeployLimits, checkContentLength, deployLimits } from './limits';
import { type Manifest, checkManifest, hexToHash, isSha256Hex, manifestTooLarge, maxManifestBytes, readManifest, writeManifest } from './manifest';
import { maxFramingBytes, readMultipartFormData, type PartHeader, type PartReceiver } from './multipart-reader';
import { packedPart } from './packed-part';
import { isMultipartFormData } from './receive';

/** An incremental deployment still receiving bytes, with the hashes (hex) it lacks. */
export interface Uploading {
  record: DeploymentRecord;
  missing: string[];
}

/** Bytes of the manifest's files whose content is stored, counting a hash once per path that holds it. */
function knownBytes(manifest: Manifest, known: ReadonlyMap<string, BlobLocation>): number {
  return manifest.files.reduce((sum, file) => sum + (known.get(file.hash)?.size ?? 0), 0);
}

/** `POST /v2/sites/<domain>/deployments`: stores the manifest as an uploading deployment. */
export async function beginIncremental(env: Env, request: Request, domain: string, userId: string): Promise<Uploading> {
  // Checked again by the coordinator on finalize, which claims a new domain; refusing here spares the manifest.
  authorize({ userId }, domain, await getSiteOwner(env.DB, domain), 'deploy');
  const limits = deployLimits(env);
  const body = await readJsonBody(request, 'application/json', { maxBytes: maxManifestBytes(limits), tooLarge: () => manifestTooLarge(limits) });
  const manifest = checkManifest(body, limits);
  if (manifest.configuration && JSON.stringify(manifest.configuration).length > maxJsonBytes) throw jsonTooLarge('The configuration');
  const known = await knownBlobs(env.DB, domain, manifest.files.map((file) => file.hash));
  checkSiteSize(limits, manifest.files.length, knownBytes(manifest, known));

  const id = newDeploymentId();
  const manifestKey = keys.manifest(domain, id);
  await writeManifest(env.FILES, manifestKey, manifest);
  const record: DeploymentRecord = {
    id,
    domain,
    created: Date.now(),
    createdBy: userId,
    source: 'incremental',
    state: 'uploading',
    fileCount: manifest.files.length,
    totalBytes: 0,
    indexKey: null,
    packs: [],
    configuration: manifest.configuration ?? {},
    manifestKey,
  };
  await putDeployment(env.DB, record).run();
  return { record, missing: missingHashes(manifest, known) };
}

/** What `record` still lacks. */
export async function stillMissing(env: Env, record: DeploymentRecord): Promise<string[]> {
  return missingOf(env, record.domain, await readManifest(env.FILES, record.manifestKey!));
}

async function missingOf(env: Env, domain: string, manifest: Manifest): Promise<string[]> {
  return missingHashes(manifest, await knownBlobs(env.DB, domain, manifest.files.map((file) => file.hash)));
}

/**
 * `PUT /v2/sites/<domain>/deployments/<id>/blobs`: parts named `blob` whose filename is their
 * SHA-256 (hex), each one of the manifest's. A part whose bytes hash otherwise is a 400, and is
 * not recorded; the parts before it are.
 */
export async function uploadBlobs(env: Env, request: Request, domain: string, id: string, userId: string): Promise<Uploading> {
  if (!isMultipartFormData(request)) throw new Problem('unsupported-media-type', 'Blobs are sent as multipart/form-data.');
  const record = await uploadingDeployment(env.DB, domain, id, userId);
  const limits = deployLimits(env);
  checkContentLength(request, limits, limits.maxTotalBytes + maxFramingBytes(limits.maxFiles), 'an upload');

  const manifest = await readManifest(env.FILES, record.manifestKey!);
  const uses = new Map<string, number>();
  for (const file of manifest.files) uses.set(file.hash, (uses.get(file.hash) ?? 0) + 1);
  const known = await knownBlobs(env.DB, domain, [...uses.keys()]);
  const pack = new PackWriter(env.FILES, keys.pack(domain, crypto.randomUUID()), packPartSize, uploadRecord(env, domain));
  const received: BlobLocation[] = [];
  const budget: Budget = { totalBytes: knownBytes(manifest, known), limits, counted: new Set(known.keys()) };
  try {
    await readMultipartFormData(request.headers.get('content-type') ?? '', request.body, (part) => blobReceiver(part, uses, received, pack, budget));
  } catch (error) {
    // Whole, verified blobs are kept: the client sends only the rest next time.
    await keepReceived(env, { domain, userId, id, pack, received }).catch((keeping: unknown) =>
      log.error('Blobs received before a failed upload could not be kept', { domain, deploymentId: id, error: keeping }),
    );
    throw error;
  }
  await keepReceived(env, { domain, userId, id, pack, received });
  return { record, missing: await missingOf(env, domain, manifest) };
}

/** The site's bytes so far, against MAX_TOTAL_BYTES; `counted`: the hashes already in that sum. */
interface Budget {
  totalBytes: number;
  limits: DeployLimits;
  counted: Set<string>;
}

function blobReceiver(
  part: PartHeader,
  uses: ReadonlyMap<string, number>,
  received: BlobLocation[],
  pack: PackWriter,
  budget: Budget,
): PartReceiver {
  if (part.name !== 'blob') throw new Problem('invalid-request', `Unknown field ${JSON.stringify(part.name)}: blobs are sent as "blob" fields.`);
  const name = part.filename ?? '';
  if (!isSha256Hex(name)) throw new Problem('invalid-request', `A blob's filename is its SHA-256 in lowercase hex, not ${JSON.stringify(name)}.`);
  const hash = hexToHash(name);
  const count = uses.get(hash);
  if (count === undefined) throw new Problem('invalid-request', `The blob ${name} is no file of this deployment's manifest.`);
  // A hash new to the site counts once for each path that holds it.
  const counts = !budget.counted.has(hash);
  budget.counted.add(hash);
  return packedPart(
    pack,
    (size, chunk) => {
      checkFileSize(budget.limits, size);
      if (counts) {
        budget.totalBytes += chunk.byteLength * count;
        checkSiteSize(budget.limits, 0, budget.totalBytes);
      }
    },
    ({ offset, size, hash: actual }) => {
      if (actual !== hash) {
        throw new Problem('invalid-request', `The bytes of the blob ${name} do not hash to its name; it was not stored.`);
      }
      if (size > 0) received.push({ hash, pack: pack.key, offset, size });
    },
  );
}

/** Stores the pack and has the coordinator record `received`; a pack with nothing verified in it is discarded. */
async function keepReceived(
  env: Env,
  upload: { domain: string; userId: string; id: string; pack: PackWriter; received: BlobLocation[] },
): Promise<void> {
  const { pack, received } = upload;
  if (received.length === 0) return pack.abort();
  try {
    await pack.finish();
  } catch (error) {
    await pack.abort();
    throw error;
  }
  await siteCoordinator(env, upload.domain).addBlobs({
    domain: upload.domain,
    userId: upload.userId,
    deploymentId: upload.id,
    pack: pack.key,
    blobs: received,
  });
}
