// One file over 250 lines: every change to a domain is an RPC method of this one Durable Object class; each body is short and leaves the work to ./commits.ts, ./deployments.ts, ./file-rules.ts and ./freshness.ts.
import { DurableObject } from 'cloudflare:workers';
import { checkHostConfiguration } from '../configuration/parse';
import type { DeployResult } from '../common/api-types';
import { deployLimits } from '../deploy/limits';
import { type Manifest, type ManifestContent, patchedManifest, readManifest } from '../deploy/manifest';
import { checkMetadata, type SiteMetadata } from '../deploy/metadata';
import type { Env } from '../env';
import { applyMergePatch } from '../http/merge-patch';
import { Problem } from '../http/problem';
import { log } from '../log';
import {
  type BlobLocation,
  type DeploymentRecord,
  addUploadedPack,
  deleteDeployments,
  deleteDeploymentsOf,
  deploymentsOf,
  endLive,
  forgetBlobsIn,
  forgetBlobsOf,
  getDeployment,
  knownBlobs,
  putDeployment,
  recordBlobs,
} from '../storage/deployments';
import { type FileEntry, type FileIndex, keys, readFileIndex, withFile, withoutFile, writeFileIndex } from '../storage/file-index';
import { deleteObjects } from '../storage/objects';
import { type SiteRecord, deleteSite, getSite, tickConfigurationsClock, upsertSite } from '../storage/sites';
import { authorize, deploymentNotFound } from './access';
import type { BlobUpload, DeployCommit, Edit, FileUpload, ManifestCommit } from './changes';
import { checkFilesAndFolders, checkSiteSize } from './file-rules';
import { Commits } from './commits';
import { newDeploymentId } from './deployment-id';
import { deployResult, indexOfManifest, keptWindowOf, missingHashes, newestFirst, readyDeployment, sameConfiguration, siteWith, uploadingDeployment } from './deployments';
import type { FollowUp, PendingChange, SiteEvent } from './follow-ups';
import { LiveRecord, type LiveSite } from './freshness';
import { collection } from './kept-window';
import { addBaseLocations, addStoredLocations, baseIndex, keptBase } from './manifest-base';
import { type Outcome, outcomeOf } from './outcome';

/**
 * One per domain (`idFromName(domain)`): every change to a domain goes through here, one at
 * a time, so access checks, the switch to a new deployment and its events cannot interleave.
 * Uploads happen before, in the Worker, under fresh keys; only the commit is serialised.
 * How a change is committed and recovered is in ./commits.ts (what follows it: ./follow-ups.ts),
 * the live record and its purges in ./freshness.ts,
 * recorded uploads in ./uploads.ts; the Worker calls this object through ./client.ts.
 */
export class SiteCoordinator extends DurableObject<Env> {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #live = new LiveRecord(this.ctx.storage, () => this.env);
  readonly #commits = new Commits(this.ctx.storage, () => this.env, this.#live);
  /** The index this object wrote last: the live one, or the base a client's next manifest patch most likely names. */
  #lastIndex?: { key: string; index: FileIndex };

  /** Runs changes one after another. A DO's input gate alone would let them interleave at every await on D1 or R2. */
  #exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(change, change);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** An exclusive change, after any change left unsettled; its problems are returned, not thrown, so they reach the Worker intact. */
  #change<T>(change: () => Promise<T>): Promise<Outcome<T>> {
    return this.#exclusive(async () => {
      await this.#commits.recover();
      return outcomeOf(change);
    });
  }

  async #readIndex(key: string): Promise<FileIndex> {
    return this.#lastIndex?.key === key ? this.#lastIndex.index : readFileIndex(this.env.FILES, key);
  }

  async #writeIndex(key: string, index: FileIndex): Promise<void> {
    await writeFileIndex(this.env.FILES, key, index);
    this.#lastIndex = { key, index };
  }

  async #load(domain: string): Promise<SiteRecord | null> {
    if (this.#live.site === undefined) this.#live.load(await getSite(this.env.DB, domain));
    return this.#live.site ?? null;
  }

  /** The site, when `userId` may change it. */
  async #changeable(domain: string, userId: string): Promise<SiteRecord> {
    const site = await this.#load(domain);
    authorize({ userId }, domain, site?.userId ?? null, 'change');
    return site!;
  }

  /**
   * Records a pack's multipart upload before its first part is written (src/storage/pack-writer.ts),
   * so that one cut off by a crash is aborted later. One more call per deploy of a pack over one
   * part: R2 offers no other way to find unfinished uploads. Not queued behind changes: nothing
   * it writes is theirs.
   */
  async beginUpload(domain: string, key: string, uploadId: string): Promise<void> {
    this.#commits.uploads.record(domain, key, uploadId);
    await this.#commits.scheduleAlarm();
  }

  /** The Worker aborted the upload of `key`. */
  async forgetUpload(key: string): Promise<void> {
    this.#commits.uploads.forget(key);
  }

  /**
   * The Worker is about to store the incremental deploy `id`, begun at `created`: the alarm
   * collects it at its deadline unless it is finalized by then, though the site may never commit
   * again (./incremental-deadlines.ts). Not queued behind changes: nothing it writes is theirs.
   */
  async beginIncremental(domain: string, id: string, created: number): Promise<void> {
    this.#commits.deadlines.record(domain, id, created);
    await this.#commits.scheduleAlarm();
  }

  /**
   * The live site, from memory in the steady state: what serving a request needs to know. Not
   * queued behind changes: the live record only ever holds a committed record. Asked `versioned`
   * by a location that missed it in its cache, it answers as ./freshness.ts says.
   */
  current(domain: string): Promise<SiteRecord | null>;
  current(domain: string, versioned: true): Promise<LiveSite>;
  async current(domain: string, versioned?: true): Promise<SiteRecord | null | LiveSite> {
    if (this.#live.site === undefined) await this.#exclusive(() => this.#load(domain));
    return versioned ? this.#live.answer() : (this.#live.site ?? null);
  }

  /** Deploys `commit` live: a new deployment of its files (or the live ones) and its host options (or the live ones). */
  deploy(commit: DeployCommit): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const { site, record, deployments } = await this.#deployment(commit, 'deploy');
      const next = siteWith(site, record, commit.userId, record.created);
      const { DB } = this.env;
      const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next)];
      const result = deployResult(site, next, commit.files !== undefined, commit.configuration !== undefined);
      await this.#commitDeployment(
        record,
        [...statements, ...recordBlobs(DB, commit.domain, commit.files?.blobs ?? [])],
        next,
        {
          now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain: commit.domain } as const])],
          orphans: commit.files ? [commit.files.indexKey, ...ownPacks(commit.files)] : [],
        },
        deployments,
      );
      return result;
    });
  }

  /** Stores `commit` as a deployment that is not live, to be previewed and activated later. */
  preview(commit: DeployCommit): Promise<Outcome<DeploymentRecord>> {
    return this.#change(async () => {
      const { record, deployments } = await this.#deployment(commit, 'change');
      await this.#commitDeployment(
        record,
        recordBlobs(this.env.DB, commit.domain, commit.files?.blobs ?? []),
        undefined,
        { now: [], orphans: commit.files ? [commit.files.indexKey, ...ownPacks(commit.files)] : [] },
        deployments,
      );
      return record;
    });
  }

  /**
   * The deployment `commit` makes, its files or configuration defaulting to the live ones; `action`
   * is checked first. With files, the site's deployments are read: 409 when a pack of stored bytes
   * the deploy reuses is held by none of them any more (collected while it uploaded).
   */
  async #deployment(
    commit: DeployCommit,
    action: 'deploy' | 'change',
  ): Promise<{ site: SiteRecord | null; record: DeploymentRecord; deployments?: DeploymentRecord[] }> {
    const { domain } = commit;
    const site = await this.#load(domain);
    authorize({ userId: commit.userId }, domain, site?.userId ?? null, action);
    let deployments: DeploymentRecord[] | undefined;
    if (commit.files) {
      const own = ownPacks(commit.files);
      await this.#claimUpload(domain, commit.files.indexKey, own);
      deployments = await deploymentsOf(this.env.DB, domain);
      const held = new Set([...own, ...deployments.flatMap((kept) => kept.packs)]);
      if (!commit.files.packs.every((key) => held.has(key))) {
        throw new Problem('conflict', `Stored bytes this deploy reuses on ${domain} were collected while it uploaded; deploy again.`);
      }
    }
    const id = commit.files?.id ?? newDeploymentId();
    const configuration = commit.configuration ?? site?.configuration ?? {};
    const record = readyDeployment(domain, id, commit.userId, 'deploy', Date.now(), commit.files ?? site?.deployment ?? null, configuration);
    return { site, record, deployments };
  }

  /**
   * Takes into a change what the Worker uploaded: 409 when `written` is gone (an unpublish while
   * it uploaded deleted everything under the site, its new objects too); else its `packs` are
   * complete, and no unfinished upload of theirs is left to abort.
   */
  async #claimUpload(domain: string, written: string, packs: readonly string[]): Promise<void> {
    if (!(await this.env.FILES.head(written))) {
      throw new Problem('conflict', `The site ${domain} was unpublished while this deploy uploaded; deploy again.`);
    }
    for (const pack of packs) this.#commits.uploads.forget(pack);
  }

  /** Makes the kept deployment `id` live again (a rollback, or a roll forward): its files and its host options. */
  activate(domain: string, userId: string, id: string): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const site = await this.#changeable(domain, userId);
      const record = await getDeployment(this.env.DB, domain, id);
      if (record?.state !== 'ready') throw deploymentNotFound(domain, id);
      const next = siteWith(site, record, userId, Date.now());
      const hasNewConfiguration = !sameConfiguration(site.configuration, record.configuration);
      const { DB } = this.env;
      const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next)];
      const result = deployResult(site, next, next.deployment?.indexKey !== site.deployment?.indexKey, hasNewConfiguration);
      await this.#commitDeployment(record, statements, next, { now: [{ kind: 'notify', event: result }] });
      return result;
    });
  }

  /** Records blobs an incremental deploy uploaded into `upload.pack`: the deployment keeps the pack, and later manifests find them. */
  addBlobs(upload: BlobUpload): Promise<Outcome<null>> {
    return this.#change(async () => {
      const { domain, pack } = upload;
      const site = await this.#load(domain);
      authorize({ userId: upload.userId }, domain, site?.userId ?? null, 'deploy');
      const uploading = await uploadingDeployment(this.env.DB, domain, upload.deploymentId, upload.userId);
      await this.#claimUpload(domain, pack, [pack]);
      // Its deadline collects the pack with it; recorded again for a deployment begun before deadlines were.
      this.#commits.deadlines.record(domain, uploading.id, uploading.created);
      await this.#commits.scheduleAlarm();
      const { DB } = this.env;
      await DB.batch([...recordBlobs(DB, domain, upload.blobs), addUploadedPack(DB, upload.deploymentId, pack)]);
      return null;
    });
  }

  /** Turns the incremental deploy `id` into a ready deployment, live unless `preview`; 409 while bytes are missing. */
  finalize(domain: string, userId: string, id: string, preview: boolean): Promise<Outcome<DeployResult | DeploymentRecord>> {
    return this.#change(async () => {
      const site = await this.#load(domain);
      authorize({ userId }, domain, site?.userId ?? null, preview ? 'change' : 'deploy');
      const uploading = await uploadingDeployment(this.env.DB, domain, id, userId);
      const manifest = await readManifest(this.env.FILES, uploading.manifestKey!);
      const dropManifest: FollowUp = { kind: 'delete-objects', objects: [uploading.manifestKey!] };
      return this.#commitManifest(site, { domain, userId, deploymentId: id, content: { manifest }, preview }, [dropManifest], uploading.packs);
    });
  }

  /** Commits an incremental deploy whose one request brought its manifest and every missing blob. */
  deployManifest(commit: ManifestCommit): Promise<Outcome<DeployResult | DeploymentRecord>> {
    return this.#change(async () => {
      const { domain, userId, upload } = commit;
      const site = await this.#load(domain);
      authorize({ userId }, domain, site?.userId ?? null, commit.preview ? 'change' : 'deploy');
      // A pack the Worker stored must still be there; one it hands over is written with the index.
      if (upload && !upload.bytes) await this.#claimUpload(domain, upload.pack, [upload.pack]);
      return this.#commitManifest(site, commit, [], upload ? [upload.pack] : []);
    });
  }

  /**
   * Makes `commit.manifest` a ready deployment, live unless a preview; 409 while bytes are missing.
   * The deployment keeps every pack it `uploaded`, though its index may read their bytes from
   * another copy (the site's hashes point at the newest, which a concurrent deploy may have
   * uploaded again): nothing else names them, and its collection frees them.
   */
  async #commitManifest(site: SiteRecord | null, commit: ManifestCommit, followUps: FollowUp[], uploaded: readonly string[]): Promise<DeployResult | DeploymentRecord> {
    const { domain, userId, deploymentId: id, content, upload } = commit;
    const { DB, FILES } = this.env;
    // The site's deployments: the kept window at the commit is drawn from them, and a patch's base
    // must be one of them (under the lock: only a base still kept vouches for its bytes).
    const listing = deploymentsOf(DB, domain);
    // Awaited below; a failure meanwhile is not an unhandled one.
    listing.catch(() => {});
    const speculative = this.#rememberedBase(content);
    let base: FileIndex | null = speculative?.index ?? null;
    let manifest: Manifest;
    if ('patch' in content) {
      const { patch } = content;
      base ??= await baseIndex(domain, patch.base, (await listing).find((kept) => kept.id === patch.base), (key) => this.#readIndex(key));
      manifest = patchedManifest(base, patch, deployLimits(this.env));
    } else {
      manifest = content.manifest;
    }
    // A hash stored again points at its newest copy, as recordBlobs keeps it.
    const known = new Map((upload?.blobs ?? []).map((blob) => [blob.hash, blob]));
    addBaseLocations(base, known);
    await addStoredLocations(DB, domain, manifest.files, known);
    const missing = missingHashes(manifest.files, known);
    if (missing.length > 0) {
      throw new Problem('conflict', `The deployment ${id} still lacks the bytes of ${missing.length} file${missing.length === 1 ? '' : 's'}; upload them first.`, {
        extensions: { missing },
      });
    }
    const now = Date.now();
    const index = indexOfManifest(manifest, known, id, now, base);
    const totalBytes = index.files.reduce((sum, file) => sum + file.size, 0);
    checkSiteSize(deployLimits(this.env), index.files.length, totalBytes);
    const indexKey = keys.index(domain, id);
    const [kept] = await Promise.all([
      listing,
      this.#writeIndex(indexKey, index),
      upload?.bytes && FILES.put(upload.pack, upload.bytes),
    ]);
    if (speculative) await this.#vouchFor(domain, speculative.id, kept, [indexKey, ...(upload?.bytes ? [upload.pack] : [])]);
    const files = { indexKey, packs: [...new Set([...index.packs, ...uploaded])], fileCount: index.files.length, totalBytes };
    const configuration = manifest.configuration ?? site?.configuration ?? {};
    const record = readyDeployment(domain, id, userId, 'incremental', now, files, configuration);
    const orphans = [indexKey, ...(upload ? [upload.pack] : [])];
    const newBlobs = recordBlobs(DB, domain, upload?.blobs ?? []);
    if (commit.preview) {
      await this.#commitDeployment(record, newBlobs, undefined, { now: followUps, orphans }, kept);
      return record;
    }
    const next = siteWith(site, record, userId, now);
    const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next), ...newBlobs];
    const result = deployResult(site, next, true, manifest.configuration !== undefined);
    await this.#commitDeployment(
      record,
      statements,
      next,
      { now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain } as const]), ...followUps], orphans },
      kept,
    );
    return result;
  }

  /**
   * The index of a patch's base when this object wrote it last: used before the site's
   * deployments say the base is still kept, so that reading them overlaps building and writing
   * the new index; `#vouchFor` checks it then.
   */
  #rememberedBase(content: ManifestContent): { id: string; index: FileIndex } | undefined {
    if (!('patch' in content) || this.#lastIndex?.index.deploymentId !== content.patch.base) return undefined;
    return { id: content.patch.base, index: this.#lastIndex.index };
  }

  /** Passes when the remembered base is among the site's `deployments` still; else deletes `written` (nothing else holds it) and throws the 409. */
  async #vouchFor(domain: string, baseId: string, deployments: readonly DeploymentRecord[], written: string[]): Promise<void> {
    try {
      keptBase(domain, baseId, deployments.find((kept) => kept.id === baseId));
    } catch (error) {
      await deleteObjects(this.env.FILES, written).catch((deleting: unknown) => log.error('A refused deploy left objects behind', { written, error: deleting }));
      throw error;
    }
  }

  unpublish(domain: string, userId: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await this.#changeable(domain, userId);
      const { DB } = this.env;
      const deploymentIds = (await deploymentsOf(DB, domain)).map((deployment) => deployment.id);
      const statements = [deleteSite(DB, domain), deleteDeploymentsOf(DB, domain), forgetBlobsOf(DB, domain), ...tickConfigurationsClock(DB, Date.now())];
      await this.#commits.commit(domain, statements, null, {
        now: [
          { kind: 'delete-site-objects', domain },
          { kind: 'purge-previews', deploymentIds },
          { kind: 'forget-certificate', domain },
          { kind: 'notify', event: { type: 'site-delete', domain } },
        ],
        unpublish: true,
      });
      return null;
    });
  }

  /**
   * Replaces or merge-patches the host options, validated after merging: a new deployment of the
   * live files with them. An edit that leaves them as they are changes nothing, so a script that
   * sets them on every run neither announces a change nor pushes deployments out of the kept window.
   */
  editConfiguration(domain: string, userId: string, edit: Edit<unknown>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => {
      const site = await this.#changeable(domain, userId);
      const configuration = checkHostConfiguration('replace' in edit ? edit.replace : applyMergePatch(site.configuration, edit.patch));
      if (sameConfiguration(site.configuration, configuration)) return site;
      const now = Date.now();
      const record = readyDeployment(domain, newDeploymentId(), userId, 'configuration', now, site.deployment, configuration);
      const next = siteWith(site, record, userId, now);
      const { DB } = this.env;
      const committed = await this.#commitDeployment(record, [upsertSite(DB, next), ...configurationChange(DB, site, next)], next, {
        now: [{ kind: 'notify', event: { type: 'configuration-update', domain, deploymentId: record.id } }],
      });
      return committed ?? next;
    });
  }

  editMetadata(domain: string, userId: string, edit: Edit<SiteMetadata>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => {
      const site = await this.#changeable(domain, userId);
      const metadata = checkMetadata('replace' in edit ? edit.replace : applyMergePatch(site.metadata, edit.patch));
      const next = { ...site, metadata, modified: Date.now() };
      await this.#commits.commit(domain, [upsertSite(this.env.DB, next)], next, { now: [] });
      return next;
    });
  }

  /**
   * Adds or replaces one file: a new deployment sharing every other file's stored bytes. Content
   * the site stores already is not stored twice: the file points at the stored copy, and the
   * uploaded pack goes. The same content and type at the same path changes nothing, so a script
   * that sends every file on every run leaves the history as it is.
   */
  putFile(domain: string, userId: string, upload: FileUpload): Promise<Outcome<{ created: boolean; entry: FileEntry }>> {
    return this.#change(async () => {
      // Its pack is complete: no unfinished upload is left to abort.
      if (upload.packKey) this.#commits.uploads.forget(upload.packKey);
      const site = await this.#changeable(domain, userId);
      const index = await this.#index(site);
      const { path, hash, size } = upload.entry;
      const previous = index.files.find((file) => file.path === path);
      if (previous && previous.hash === hash && previous.contentType === upload.entry.contentType) {
        await this.#dropUnusedPack(upload.packKey);
        return { created: false, entry: previous };
      }
      checkFilesAndFolders(new Set([...index.files.map((file) => file.path), path]));
      const totalBytes = (site.deployment?.totalBytes ?? 0) - (previous?.size ?? 0) + size;
      checkSiteSize(deployLimits(this.env), index.files.length + (previous ? 0 : 1), totalBytes);
      // Under the lock a hash's row names a pack that a kept deployment holds, and the new one will.
      const stored = upload.packKey ? (await knownBlobs(this.env.DB, domain, [hash])).get(hash) : undefined;
      const newPack = stored ? null : upload.packKey;
      const now = Date.now();
      const entry = stored ? { ...upload.entry, offset: stored.offset } : upload.entry;
      const next = withFile(index, entry, stored?.pack ?? newPack, newDeploymentId(), now);
      const blobs = newPack ? [{ hash, pack: newPack, offset: upload.entry.offset, size }] : [];
      await this.#switchFiles(site, userId, 'file-put', next, now, newPack, blobs, {
        type: 'files-update',
        domain,
        path,
        change: previous ? 'replaced' : 'added',
        deploymentId: next.deploymentId,
      });
      if (stored) await this.#dropUnusedPack(upload.packKey);
      return { created: !previous, entry: next.files.find((file) => file.path === path)! };
    });
  }

  /** Deletes an uploaded pack no deployment names; one left by a failure goes with the site at worst. */
  async #dropUnusedPack(packKey: string | null): Promise<void> {
    if (packKey) await deleteObjects(this.env.FILES, [packKey]).catch((error: unknown) => log.error('An unused pack was left behind', { packKey, error }));
  }

  deleteFile(domain: string, userId: string, path: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      const site = await this.#changeable(domain, userId);
      const index = await this.#index(site);
      if (!index.files.some((file) => file.path === path)) {
        throw new Problem('not-found', `There is no file ${JSON.stringify(path)} on ${domain}.`);
      }
      const now = Date.now();
      const next = withoutFile(index, path, newDeploymentId(), now);
      await this.#switchFiles(site, userId, 'file-delete', next, now, null, [], {
        type: 'files-update',
        domain,
        path,
        change: 'deleted',
        deploymentId: next.deploymentId,
      });
      return null;
    });
  }

  async #index(site: SiteRecord): Promise<FileIndex> {
    if (!site.deployment) return { deploymentId: '', created: 0, packs: [], files: [] };
    return this.#readIndex(site.deployment.indexKey);
  }

  /** Makes `index` the site's new live deployment and announces `event`; `newPack` holds the bytes this change added, at `blobs`. */
  async #switchFiles(
    site: SiteRecord,
    userId: string,
    source: 'file-put' | 'file-delete',
    index: FileIndex,
    now: number,
    newPack: string | null,
    blobs: BlobLocation[],
    event: SiteEvent,
  ): Promise<void> {
    const indexKey = keys.index(site.domain, index.deploymentId);
    await this.#writeIndex(indexKey, index);
    const files = {
      indexKey,
      packs: index.packs,
      fileCount: index.files.length,
      totalBytes: index.files.reduce((sum, file) => sum + file.size, 0),
    };
    const record = readyDeployment(site.domain, index.deploymentId, userId, source, now, files, site.configuration);
    const next = siteWith(site, record, userId, now);
    const { DB } = this.env;
    await this.#commitDeployment(record, [upsertSite(DB, next), ...recordBlobs(DB, site.domain, blobs)], next, {
      now: [{ kind: 'notify', event }],
      orphans: newPack ? [indexKey, newPack] : [indexKey],
    });
  }

  /**
   * Commits a change that stores `record` (new, or activated) and makes `live` the live site
   * (undefined: unchanged). Deployments that fall out of the kept window go in the same batch;
   * the objects no kept deployment holds are deleted after the grace period, for reads in flight.
   */
  async #commitDeployment(
    record: DeploymentRecord,
    statements: D1PreparedStatement[],
    live: SiteRecord | undefined,
    followUps: Omit<PendingChange, 'id' | 'domain' | 'later'>,
    /** The site's deployments, when this change read them already under the lock. */
    deployments?: DeploymentRecord[],
  ): Promise<SiteRecord | null | undefined> {
    const { DB } = this.env;
    const { domain } = record;
    const wasLive = this.#live.site?.liveDeploymentId ?? null;
    const liveId = live ? live.liveDeploymentId : wasLive;
    const others = (deployments ?? (await deploymentsOf(DB, domain))).filter((kept) => kept.id !== record.id);
    const freed = this.#collection(domain, [record, ...others].sort(newestFirst), liveId);
    // The deployment this change takes off the air: a rollback without an id looks for it.
    const ended = wasLive !== null && wasLive !== liveId ? [endLive(DB, wasLive, Date.now())] : [];
    return this.#commits.commit(domain, [putDeployment(DB, record), ...statements, ...ended, ...freed.statements], live, {
      ...followUps,
      now: [...followUps.now, ...freed.now],
      later: freed.later,
    });
  }

  /**
   * What falls out of the kept window of `deployments` (newest first) now, `liveId` being live:
   * statements deleting its rows and hashes, for a commit's batch; the purge of the records
   * locations hold for its preview hosts, so they stop at once; and the deletion of the objects
   * no kept deployment holds, due after the grace period for reads in flight.
   */
  #collection(domain: string, deployments: DeploymentRecord[], liveId: string | null): { statements: D1PreparedStatement[]; now: FollowUp[]; later: FollowUp[] } {
    const freed = collection(deployments, liveId, keptWindowOf(this.env), Date.now());
    if (freed.deployments.length === 0) return { statements: [], now: [], later: [] };
    const { DB } = this.env;
    return {
      statements: [deleteDeployments(DB, freed.deployments), forgetBlobsIn(DB, domain, freed.packs)],
      now: [{ kind: 'purge-previews', deploymentIds: freed.deployments }],
      later: freed.objects.length > 0 ? [{ kind: 'delete-objects', objects: freed.objects }] : [],
    };
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      await this.#commits.recover();
      await this.#collectAbandoned().catch((error: unknown) => log.error('Collecting abandoned incremental deploys failed; the alarm retries it', { error }));
      await this.#commits.catchUp();
    });
  }

  /**
   * Once an incremental deploy's deadline has passed, collects the kept window as a commit does:
   * on a site that never commits again, nothing else would. A deploy whose row the Worker never
   * wrote (it stopped after recording the deadline) leaves at most its manifest, which nothing names.
   */
  async #collectAbandoned(): Promise<void> {
    const due = this.#commits.deadlines.due();
    if (due.length === 0) return;
    const { domain } = due[0]!;
    const site = await this.#load(domain);
    const deployments = await deploymentsOf(this.env.DB, domain);
    const freed = this.#collection(domain, deployments, site?.liveDeploymentId ?? null);
    if (freed.statements.length > 0) await this.#commits.commit(domain, freed.statements, undefined, { now: freed.now, later: freed.later });
    const written = new Set(deployments.map((deployment) => deployment.id));
    const unwritten = due.filter((deadline) => !written.has(deadline.deploymentId));
    await deleteObjects(this.env.FILES, unwritten.map((deadline) => keys.manifest(domain, deadline.deploymentId)));
    this.#commits.deadlines.forget(due);
  }
}

/** What records that `next` changed the site's configuration, when it did: a new site adds one ({} when none was sent). */
function configurationChange(db: D1Database, previous: SiteRecord | null, next: SiteRecord): D1PreparedStatement[] {
  return previous && sameConfiguration(previous.configuration, next.configuration) ? [] : tickConfigurationsClock(db, next.configurationModified, next.domain);
}

/** The packs a deploy wrote itself: those its new bytes lie in (the others hold stored bytes it reuses). */
function ownPacks(files: NonNullable<DeployCommit['files']>): string[] {
  const written = new Set(files.blobs.map((blob) => blob.pack));
  return files.packs.filter((key) => written.has(key));
}
