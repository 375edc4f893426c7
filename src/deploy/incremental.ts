/**
 * Incremental deploys, the Worker's half: the manifest is stored and answered with the hashes the
 * site lacks (one D1 query for any number of files), or, when it comes with every missing blob and
 * asks to be finalized, committed in that one request. Uploaded blobs are streamed into one pack
 * per request, each verified against its name. What a blob upload brought whole and verified is
 * recorded even when the request fails later, so a client resumes by asking again what is missing. The
 * coordinator records the blobs and, on finalize, builds the deployment (src/coordinator/coordinator.ts).
 */
import type { DeployResult, DeploymentProvenance } from '../common/api-types';
import type { Env } from '../platform/env';
import { jsonTooLarge, maxJsonBytes, parseJsonText, readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { log } from '../platform/log';
import { settingsOf } from '../platform/settings';
import { type Deployer, asDeployer, authorize, refuseSuspendedUser } from '../coordinator/access/access';
import { checkClaimant } from '../coordinator/access/claimant';
import type { PackUpload } from '../coordinator/changes';
import { type OnPurgePending, siteCoordinator, uploadRecord } from '../coordinator/coordinator-client';
import { newDeploymentId } from '../coordinator/records/deployment-id';
import { missingHashes, uploadingDeployment } from '../coordinator/records/deployment-records';
import { addBaseLocations, addStoredLocations, baseIndex } from '../coordinator/deploys/manifest-base';
import { checkSiteSize } from '../content/file-rules';
import type { BlobLocation, DeploymentRecord } from '../storage/deployments-table';
import { type FileIndex, keys, readFileIndex } from '../storage/file-index';
import { PackWriter, packPartSize } from '../storage/pack-writer';
import { getUserSuspension } from '../storage/user-suspensions';
import { siteAccess } from '../storage/members-table';
import { discard, handOver } from './hand-over';
import type { DeploymentClient } from '../common/deployment-labels';
import { type DeploymentLabels, type RequestedLabels, labelsOf, requestClient } from '../content/label-checks';
import { type DeployLimits, checkContentLength, deployLimits } from '../content/deploy-limits';
import {
  type Finalize,
  type Manifest,
  type ManifestContent,
  type ManifestFile,
  type ManifestPatch,
  checkManifest,
  filesNamed,
  manifestTooLarge,
  maxManifestBytes,
  patchedManifest,
  readManifest,
  writeManifest,
} from '../content/manifest';
import { maxFramingBytes, readMultipartFormData, type PartHeader, type PartReceiver } from './multipart-reader';
import { isMultipartFormData } from './receive';
import { type TextPartRules, textPart } from './text-part';
import { blobParts, knownBytes } from './blob-parts';
import { type StorageRoom, admitDeploy, storageRoom } from '../quotas/admission';

/** An incremental deployment still receiving bytes, with the hashes (hex) it lacks. */
export interface Uploading {
  record: DeploymentRecord;
  missing: string[];
}

/** What a manifest request made: a deployment still uploading, or, finalized at once, the deploy result or the preview. */
export type Begun = ({ state: 'uploading' } & Uploading) | { state: 'live'; result: DeployResult } | { state: 'preview'; record: DeploymentRecord };

/**
 * A checked manifest request, with where the site stores the bytes it names (`known`). A patch
 * stays one unless it must be stored: committed at once, the coordinator resolves it.
 */
interface Prepared {
  content: ManifestContent;
  finalize?: Finalize;
  /** The deployment's message and alias, checked. */
  labels: RequestedLabels;
  known: Map<string, BlobLocation>;
  /** The sizes the client declares of content the site may lack. */
  sizes: ReadonlyMap<string, number>;
}

function prepare(limits: DeployLimits, body: unknown): Prepared {
  const { finalize, sizes, labels, ...content } = checkManifest(body, limits);
  const { configuration } = 'patch' in content ? content.patch : content.manifest;
  if (configuration && JSON.stringify(configuration).length > maxJsonBytes) throw jsonTooLarge('The configuration');
  return { content, known: new Map(), sizes, labels, ...(finalize ? { finalize } : {}) };
}

/**
 * Completes what `prepared` knows with the blobs the request brought, then the site's other stored
 * bytes (those not asked yet), and checks a whole manifest's size (a patch's is checked once it is
 * resolved) and that the sizes declared of what is still missing fit in what the user may store.
 */
async function complete(env: Env, request: BeginRequest, prepared: Prepared, received: readonly BlobLocation[] = []): Promise<Prepared> {
  const { content, known, sizes } = prepared;
  for (const blob of received) known.set(blob.hash, blob);
  await addStoredLocations((hashes) => siteCoordinator(env, request.domain).knownBlobs(request.domain, hashes), filesNamed(content), known);
  if ('manifest' in content) checkSiteSize(request.limits, content.manifest.files.length, knownBytes(content.manifest.files, known, sizes));
  request.room.check(declaredMissingBytes(filesNamed(content), known, sizes));
  return prepared;
}

/** The sizes the client declares of the contents neither stored nor brought, once each. */
function declaredMissingBytes(files: readonly ManifestFile[], known: ReadonlyMap<string, BlobLocation>, sizes: ReadonlyMap<string, number>): number {
  const missing = new Set(files.map((file) => file.hash).filter((hash) => !known.has(hash)));
  return [...missing].reduce((sum, hash) => sum + (sizes.get(hash) ?? 0), 0);
}

/** The whole manifest a patch makes of its base, to be stored, with where the base's bytes lie added to `known`. */
async function resolvePatch(
  env: Env,
  domain: string,
  limits: DeployLimits,
  patch: ManifestPatch,
  { known, sizes }: Pick<Prepared, 'known' | 'sizes'>,
): Promise<Manifest> {
  const base = await baseIndex(domain, patch.base, await siteCoordinator(env, domain).deployment(domain, patch.base), (key) => readFileIndex(env.FILES, key));
  const manifest = patchedManifest(base, patch, limits);
  // The request's own blobs and stored ones already known stay: a hash stored again points at its newest copy.
  addBaseLocations(base, known);
  checkSiteSize(limits, manifest.files.length, knownBytes(manifest.files, known, sizes));
  return manifest;
}

/** Who begins an incremental deploy of which domain, within which limits. */
interface BeginRequest {
  domain: string;
  userId: string;
  claims: boolean;
  provenance: DeploymentProvenance;
  limits: DeployLimits;
  room: StorageRoom;
  /** Called as the body begins to be read: the deploy counts from then (src/quotas/admission.ts). */
  reading: () => void;
  /** Told when the commit answered with its purge pending (src/api/purge-notice.ts). */
  onPurgePending?: OnPurgePending;
}

/**
 * `POST /v2/sites/<domain>/deployments`: a manifest (JSON), or a manifest part followed by blob
 * parts (multipart) so that a small change takes one request. With `finalize`, a deployment that
 * lacks no bytes is committed at once; else it is stored as uploading, with the blobs it came
 * with, and answered with what it still lacks. A request that fails stores nothing.
 */
export async function beginIncremental(env: Env, request: Request, domain: string, { userId, claims }: Deployer, provenance: DeploymentProvenance, onPurgePending?: OnPurgePending): Promise<Begun> {
  const { site: owner, member, suspension } = await siteAccess(env.DB, domain, userId);
  // A member's deploy counts against the owner's quotas.
  const admission = await admitDeploy(env, domain, owner?.userId ?? userId);
  return admission.run(async () => {
    // Checked again by the coordinator, which claims a new domain; refusing here spares the manifest.
    authorize(asDeployer(userId, claims), domain, owner, 'deploy', member);
    refuseSuspendedUser(userId, suspension);
    if (owner === null) await checkClaimant(env, domain, userId);
    admission.check();
    return begin(env, request, { domain, userId, claims, provenance, limits: deployLimits(env), room: admission.room, reading: admission.reading, onPurgePending });
  });
}

async function begin(env: Env, request: Request, begin: BeginRequest): Promise<Begun> {
  const { domain, userId, claims, provenance, limits, onPurgePending } = begin;
  const id = newDeploymentId();
  const client = requestClient(request);
  if (!isMultipartFormData(request)) {
    begin.reading();
    const body = await readJsonBody(request, 'application/json', {
      maxBytes: maxManifestBytes(limits),
      tooLarge: () => manifestTooLarge(limits),
      orAlso: 'multipart/form-data (the manifest part, then blob parts)',
    });
    const prepared = prepare(limits, body);
    return settle(env, { domain, userId, claims, id, limits, client, provenance, onPurgePending }, await complete(env, begin, prepared));
  }
  checkContentLength(request, limits, maxManifestBytes(limits) + limits.maxTotalBytes + maxFramingBytes(limits.maxFiles + 1), 'a deploy');
  begin.reading();
  const pack = new PackWriter(env.FILES, keys.pack(domain, crypto.randomUUID()), packPartSize, uploadRecord(env, domain));
  const received: BlobLocation[] = [];
  // Set once the manifest part has been read; the blob parts follow it.
  const begun: { prepared?: Prepared; stored?: Promise<Map<string, BlobLocation>>; receive?: (part: PartHeader) => PartReceiver } = {};
  let inline: Uint8Array | undefined;
  try {
    await readMultipartFormData(request.headers.get('content-type') ?? '', request.body, (part) => {
      if (begun.receive) return begun.receive(part);
      if (part.name !== 'manifest') throw new Problem('invalid-request', 'The first part of an incremental deploy is its "manifest".');
      return textPart(manifestPart(limits), async (text) => {
        const prepared = prepare(limits, parseJsonText(text, 'The manifest'));
        const files = filesNamed(prepared.content);
        // Declared sizes over a limit by themselves: the site's stored sizes decide, before the blobs.
        if (knownBytes(files, new Map(), prepared.sizes) > Math.min(limits.maxTotalBytes, begin.room.left)) await complete(env, begin, prepared);
        // Asked while the blobs stream in, so that content the site stores already is not stored again.
        const stored = siteCoordinator(env, domain).knownBlobs(domain, files.map((file) => file.hash)).catch(() => new Map<string, BlobLocation>());
        begun.prepared = prepared;
        begun.stored = stored;
        begun.receive = blobParts({ files, limits, pack, received, stored, room: begin.room });
      });
    });
    if (!begun.prepared) throw new Problem('invalid-request', 'An incremental deploy sends its "manifest" part first.');
    for (const [hash, blob] of await begun.stored!) begun.prepared.known.set(hash, blob);
    await complete(env, begin, begun.prepared, received);
    // A pack still held in memory whole goes with a commit made at once: the coordinator writes it
    // with the new index, and a refusal leaves nothing stored.
    inline = received.length > 0 && commitsAtOnce(begun.prepared) ? pack.heldSince(0)?.slice() : undefined;
    if (received.length > 0 && !inline) await pack.finish();
  } catch (error) {
    await abandon(pack);
    throw error;
  }
  // The coordinator keeps the pack, or deletes it when nothing takes it (./hand-over.ts).
  const upload = received.length > 0 ? { pack: pack.key, blobs: received, ...(inline ? { bytes: inline, packBytes: inline.byteLength } : { packBytes: pack.stored }) } : undefined;
  return settle(env, { domain, userId, claims, id, limits, client, provenance, upload, onPurgePending }, begun.prepared);
}

/** Aborts a pack's unfinished upload; failing, the coordinator aborts it once abandoned. */
async function abandon(pack: PackWriter): Promise<void> {
  await pack.abort().catch((error: unknown) => log.error('A failed deploy could not abort its pack', { pack: pack.key, error }));
}

function manifestPart(limits: DeployLimits): TextPartRules {
  return {
    maxBytes: maxManifestBytes(limits),
    tooLarge: () => manifestTooLarge(limits),
    notText: () => new Problem('invalid-request', 'The manifest is not UTF-8 text.'),
  };
}

/** Whether the deployment is committed in this request: it was asked to be finalized, and lacks nothing. */
function commitsAtOnce({ content, finalize, known }: Prepared): boolean {
  return finalize !== undefined && missingHashes(filesNamed(content), known).length === 0;
}

/** Commits the deployment when it was asked to be finalized and lacks nothing; else stores it as uploading. */
async function settle(
  env: Env,
  begin: { domain: string; userId: string; claims: boolean; id: string; limits: DeployLimits; client: DeploymentClient; provenance: DeploymentProvenance; upload?: PackUpload; onPurgePending?: OnPurgePending },
  prepared: Prepared,
): Promise<Begun> {
  const { domain, userId, claims, id, upload } = begin;
  const { content, finalize, known } = prepared;
  let labels: DeploymentLabels;
  try {
    labels = await labelsOf(domain, prepared.labels, begin.client, begin.provenance);
  } catch (error) {
    await discard(env, domain, storedPack(upload));
    throw error;
  }
  if (commitsAtOnce(prepared)) {
    const commit = { domain, userId, claims, deploymentId: id, content, upload, preview: finalize === 'preview', labels };
    const done = await handOver(env, domain, storedPack(upload), () => siteCoordinator(env, domain, begin.onPurgePending).deployManifest(commit));
    return 'type' in done ? { state: 'live', result: done } : { state: 'preview', record: done };
  }
  let manifest: Manifest;
  let record: DeploymentRecord;
  try {
    // Stored, a patch is the whole manifest it makes of its base: finalizing it reads no base.
    manifest = 'patch' in content ? await resolvePatch(env, domain, begin.limits, content.patch, prepared) : content.manifest;
    record = uploadingRecord(domain, userId, id, manifest, labels);
    // Before anything is stored: whatever this request leaves unfinished, the coordinator collects at its deadline.
    await siteCoordinator(env, domain).beginIncremental(domain, id, record.created);
    await writeManifest(env.FILES, record.manifestKey!, manifest);
    await siteCoordinator(env, domain).storeUploading(record, settingsOf(env).maxUnfinishedDeployments);
  } catch (error) {
    await discard(env, domain, storedPack(upload));
    throw error;
  }
  if (upload) await handOver(env, domain, storedPack(upload), () => siteCoordinator(env, domain).addBlobs({ domain, userId, claims, deploymentId: id, ...upload }));
  return { state: 'uploading', record, missing: missingHashes(manifest.files, known) };
}

function uploadingRecord(domain: string, userId: string, id: string, manifest: Manifest, labels: DeploymentLabels): DeploymentRecord {
  return {
    ...labels,
    preview: false,
    id,
    domain,
    created: Date.now(),
    createdBy: userId,
    source: 'incremental',
    state: 'uploading',
    liveUntil: null,
    fileCount: manifest.files.length,
    totalBytes: 0,
    indexKey: null,
    packs: [],
    configuration: manifest.configuration ?? {},
    manifestKey: keys.manifest(domain, id),
  };
}

/** The pack `upload` stored itself, for `handOver` (one whose bytes go with the change is written by the coordinator). */
function storedPack(upload: PackUpload | undefined): string[] {
  return upload && !upload.bytes ? [upload.pack] : [];
}

/** What `record` still lacks. */
export async function stillMissing(env: Env, record: DeploymentRecord): Promise<string[]> {
  return missingOf(env, record.domain, await readManifest(env.FILES, record.manifestKey!));
}

async function missingOf(env: Env, domain: string, manifest: Manifest): Promise<string[]> {
  return missingHashes(manifest.files, await siteCoordinator(env, domain).knownBlobs(domain, manifest.files.map((file) => file.hash)));
}

/**
 * `PUT /v2/sites/<domain>/deployments/<id>/blobs`: parts named `blob` whose filename is their
 * SHA-256 (hex), each one of the manifest's. A part whose bytes hash otherwise is a 400, and is
 * not recorded; the parts before it are.
 */
export async function uploadBlobs(env: Env, request: Request, domain: string, id: string, { userId, claims }: Deployer): Promise<Uploading> {
  if (!isMultipartFormData(request)) throw new Problem('unsupported-media-type', 'Blobs are sent as multipart/form-data.');
  const { site: owner, member, suspension } = await siteAccess(env.DB, domain, userId);
  // Checked again by the coordinator. A deploy begun before another user claimed the domain ends here,
  // and one of a user suspended since it began (for a new domain, no site record tells).
  authorize(asDeployer(userId, claims), domain, owner, 'deploy', member);
  refuseSuspendedUser(userId, owner === null ? await getUserSuspension(env.DB, userId) : suspension);
  const room = await storageRoom(env, owner?.userId ?? userId, domain);
  const record = uploadingDeployment(await siteCoordinator(env, domain).deployment(domain, id), domain, id, userId);
  const limits = deployLimits(env);
  checkContentLength(request, limits, limits.maxTotalBytes + maxFramingBytes(limits.maxFiles), 'an upload');

  const manifest = await readManifest(env.FILES, record.manifestKey!);
  const known = await siteCoordinator(env, domain).knownBlobs(domain, manifest.files.map((file) => file.hash));
  const pack = new PackWriter(env.FILES, keys.pack(domain, crypto.randomUUID()), packPartSize, uploadRecord(env, domain));
  const received: BlobLocation[] = [];
  try {
    await readMultipartFormData(request.headers.get('content-type') ?? '', request.body, blobParts({ files: manifest.files, limits, pack, received, known, room }));
  } catch (error) {
    // Whole, verified blobs are kept: the client sends only the rest next time.
    await keepReceived(env, { domain, userId, claims, id, pack, received }).catch((keeping: unknown) =>
      log.error('Blobs received before a failed upload could not be kept', { domain, deploymentId: id, error: keeping }),
    );
    throw error;
  }
  await keepReceived(env, { domain, userId, claims, id, pack, received });
  return { record, missing: await missingOf(env, domain, manifest) };
}

/**
 * Stores the pack up to the end of the last blob verified (what a refused or cut-off part added
 * after it goes) and has the coordinator record `received`; a pack with nothing verified in it is
 * discarded.
 */
async function keepReceived(
  env: Env,
  upload: { domain: string; userId: string; claims: boolean; id: string; pack: PackWriter; received: BlobLocation[] },
): Promise<void> {
  const { pack, received } = upload;
  if (received.length === 0) return pack.abort();
  try {
    await pack.finish(received.reduce((end, blob) => Math.max(end, blob.offset + blob.size), 0));
  } catch (error) {
    await abandon(pack);
    throw error;
  }
  await handOver(env, upload.domain, [pack.key], () =>
    siteCoordinator(env, upload.domain).addBlobs({
      domain: upload.domain,
      userId: upload.userId,
      claims: upload.claims,
      deploymentId: upload.id,
      pack: pack.key,
      packBytes: pack.stored,
      blobs: received,
    }),
  );
}
