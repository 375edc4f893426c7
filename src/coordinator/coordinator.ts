// One class of RPC methods: every change to a domain goes through this one Durable Object. Each body is short and leaves the work to ./commit/site-state.ts, ./deploys/manifest-commit.ts, ./deploys/file-edits.ts, ./commit/commits.ts and ./edge/freshness.ts.
import { DurableObject } from 'cloudflare:workers';
import type { DeployResult } from '../common/api-types';
import type { DeploymentClient } from '../common/deployment-labels';
import { readManifest } from '../content/manifest';
import type { SiteMetadata } from '../content/metadata';
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import type { BlobLocation, DeploymentRecord, DeploymentsCursor } from '../storage/deployments-table';
import type { FileEntry } from '../storage/file-index';
import { deleteObjects } from '../storage/objects';
import { type SiteRecord, type Suspension, deleteSite, tickConfigurationsClock, upsertSite } from '../storage/sites-table';
import { recordUnpublished } from '../storage/configurations-feed';
import { deleteMembersOf } from '../storage/members-table';
import { deleteTrustOf } from '../storage/trust-table';
import { deleteDeploymentHosts } from '../storage/deployment-hosts';
import { type Deployer, type Requester, administer, asDeployer, authorize, deploymentNotFound } from './access/access';
import { deploymentOf } from './deploys/deploy-record';
import { type AccessAnswer, type AccessChange, changeAccess } from './access/access-changes';
import type { BlobUpload, DeployCommit, Edit, FileUpload, ManifestCommit } from './changes';
import { deployResult, labelsOfRecord, sameConfiguration, siteWith, uploadingDeployment } from './records/deployment-records';
import { deleteFile, putFile } from './deploys/file-edits';
import type { FollowUp } from './sweeps/follow-ups';
import type { LiveSite } from './edge/freshness';
import { commitManifest } from './deploys/manifest-commit';
import { cancelUpload, collectAbandoned, discardUnheld } from './deploys/uploaded-objects';
import { recordBlobUpload } from './deploys/blob-uploads';
import { sweepOrphans } from './sweeps/orphans';
import { type Outcome, outcomeOf } from './outcome';
import { configurationChange, previewClaim, SiteState } from './commit/site-state';
import { editConfiguration, editMetadata } from './deploys/site-edits';
import { refreshOwnerSuspension, resume, suspend } from './access/suspension';
import { type ProtectionChange, changeProtection } from './access/protection-change';
import type { SiteProtection } from '../protection/site-protection';
import { servesAlready, unchangedResult } from './deploys/unchanged';
import { storeUploading } from './deploys/unfinished';
import { type ReconciledSite, reconcile } from './commit/reconcile';

/**
 * One per domain (`idFromName(domain)`): every change to a domain goes through here, one at
 * a time, so access checks, the switch to a new deployment and its events cannot interleave.
 * Uploads happen before, in the Worker, under fresh keys; only the commit is serialised.
 * What it holds between changes, and how a deployment is committed, is in ./commit/site-state.ts; how
 * a change is committed and recovered in ./commit/commits.ts (what follows it: ./sweeps/follow-ups.ts), the
 * live record and its purges in ./edge/freshness.ts, recorded uploads in ./records/uploads.ts; the Worker
 * calls this object through ./coordinator-client.ts.
 */
export class SiteCoordinator extends DurableObject<Env> {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #state = new SiteState(this.ctx.storage, () => this.env);

  /** Runs changes one after another. A DO's input gate alone would let them interleave at every await on D1 or R2. */
  #exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(change, change);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** An exclusive change, after any change left unsettled; its problems are returned, not thrown, so they reach the Worker intact, and so is a purge of its left pending. */
  #change<T>(change: () => Promise<T>): Promise<Outcome<T>> {
    return this.#exclusive(async () => {
      await this.#state.commits.recover();
      this.#state.live.beginChange();
      const outcome = await outcomeOf(change);
      return outcome.ok && this.#state.live.purgePending ? { ...outcome, purgePending: true } : outcome;
    });
  }

  /**
   * Records a pack's multipart upload before its first part is written (src/storage/pack-writer.ts),
   * so that one cut off by a crash is aborted later. One more call per deploy of a pack over one
   * part: R2 offers no other way to find unfinished uploads. Not queued behind changes: nothing
   * it writes is theirs.
   */
  async beginUpload(domain: string, key: string, uploadId: string): Promise<void> {
    this.#state.commits.uploads.record(domain, key, uploadId);
    await this.#state.commits.scheduleAlarm();
  }

  /** Where the stored ones of `hashes` lie (./records/blob-index.ts). Not queued behind changes: the index only ever names bytes that exist. */
  async knownBlobs(domain: string, hashes: readonly string[]): Promise<Map<string, BlobLocation>> {
    await this.#state.commits.moved(domain);
    return this.#state.commits.blobs.known(hashes);
  }

  /** Every hash the site stores and where: what a multipart deploy need not store again. */
  async storedBlobs(domain: string): Promise<Map<string, BlobLocation>> {
    await this.#state.commits.moved(domain);
    return this.#state.commits.blobs.all();
  }

  /**
   * The site's ready deployments after `cursor`, newest first (at most `limit`), one by id, or the
   * newest with an alias host's `label`: the Worker reads them only here (./records/deployment-store.ts).
   */
  async deployments(domain: string, limit: number, cursor?: DeploymentsCursor): Promise<DeploymentRecord[]> {
    await this.#recovered();
    return this.#state.deployments.page(domain, limit, cursor);
  }
  async deployment(domain: string, id: string): Promise<DeploymentRecord | null> {
    await this.#recovered();
    return this.#state.deployments.get(domain, id);
  }
  async aliased(domain: string, label: string): Promise<DeploymentRecord | null> {
    await this.#recovered();
    return this.#state.deployments.newestAliased(domain, label);
  }

  /** Settles a change this object committed and did not settle (it stopped, and no change or alarm came since): reads answer what D1 holds. */
  async #recovered(): Promise<void> {
    if (this.#state.commits.unsettled()) await this.#exclusive(() => this.#state.commits.recover());
  }

  /** The Worker aborted the upload of `key`. */
  async forgetUpload(key: string): Promise<void> {
    this.#state.commits.uploads.forget(key);
  }

  /** The Worker is about to store the incremental deploy `id`, begun at `created`: the alarm collects it at its deadline unless it is finalized by then, though the site may never commit again (./records/incremental-deadlines.ts). Not queued behind changes: nothing it writes is theirs. */
  async beginIncremental(domain: string, id: string, created: number): Promise<void> {
    this.#state.commits.deadlines.record(domain, id, created);
    await this.#state.commits.scheduleAlarm();
  }

  /** Stores the incremental deploy `record`, its manifest written, as uploading; 429 when its site holds `max` (MAX_UNFINISHED_DEPLOYMENTS, the Worker's setting) already. */
  storeUploading(record: DeploymentRecord, max: number): Promise<Outcome<null>> {
    return this.#change(async () => (await storeUploading(this.#state, record, max), null));
  }

  /**
   * The live site, from memory in the steady state: what serving a request needs to know. Not
   * queued behind changes: the live record only ever holds a committed record. Asked `versioned`
   * by a location that missed it in its cache, it answers as ./edge/freshness.ts says.
   */
  current(domain: string): Promise<SiteRecord | null>;
  current(domain: string, versioned: true): Promise<LiveSite>;
  async current(domain: string, versioned?: true): Promise<SiteRecord | null | LiveSite> {
    if (this.#state.live.site === undefined) await this.#exclusive(() => this.#state.load(domain));
    return versioned ? this.#state.live.answer() : (this.#state.live.site ?? null);
  }

  /** Deploys `commit` live: a new deployment of its files (or the live ones) and its host options (or the live ones); none when the site serves them already. */
  deploy(commit: DeployCommit): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const { site, record, deployments, written } = await deploymentOf(this.#state, commit);
      if (await servesAlready(this.#state, site, { files: commit.files, configuration: record.configuration, labels: commit.labels }, deployments)) {
        // What the deploy stored goes: nothing names it.
        await deleteObjects(this.env.FILES, written.map((object) => object.key));
        return unchangedResult(site!, record.created);
      }
      const next = siteWith(site, record, commit.userId, record.created);
      const { DB } = this.env;
      const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next)];
      const result = deployResult(site, next, commit.files !== undefined, commit.configuration !== undefined, record);
      await this.#state.commitDeployment(
        record,
        statements,
        next,
        {
          now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain: commit.domain } as const])],
          written,
          blobs: commit.files?.blobs,
        },
        deployments,
      );
      return result;
    });
  }

  /** Stores `commit` as a deployment that is not live, to be previewed and activated later; the first claims a new domain. */
  preview(commit: DeployCommit): Promise<Outcome<DeploymentRecord>> {
    return this.#change(async () => {
      const { site, record, deployments, written } = await deploymentOf(this.#state, commit, true);
      const { DB } = this.env;
      const claim = previewClaim(DB, site, commit.userId, commit.domain, record.created);
      await this.#state.commitDeployment(record, claim.statements, claim.live, { now: claim.now, written, blobs: commit.files?.blobs }, deployments);
      return record;
    });
  }

  /** Makes the kept deployment `id` live again (a rollback, or a roll forward): its files and its host options. */
  activate(domain: string, userId: string, id: string): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const site = await this.#state.changeable(domain, asDeployer(userId));
      const record = await this.#state.deployments.get(domain, id);
      if (record?.state !== 'ready') throw deploymentNotFound(domain, id);
      const next = siteWith(site, record, userId, Date.now());
      const hasNewConfiguration = !sameConfiguration(site.configuration, record.configuration);
      const { DB } = this.env;
      const statements = [upsertSite(DB, next), ...configurationChange(DB, site, next)];
      const result = deployResult(site, next, next.deployment?.indexKey !== site.deployment?.indexKey, hasNewConfiguration, record);
      await this.#state.commitDeployment(record, statements, next, { now: [{ kind: 'notify', event: result }] });
      return result;
    });
  }

  /** Records blobs an incremental deploy uploaded into `upload.pack`, each once: see ./deploys/blob-uploads.ts. */
  addBlobs(upload: BlobUpload): Promise<Outcome<null>> {
    return this.#change(async () => {
      await recordBlobUpload(this.#state, upload);
      return null;
    });
  }

  /** Turns the incremental deploy `id` into a ready deployment, live unless `preview`; 409 while bytes are missing. */
  finalize(domain: string, { userId, claims }: Deployer, id: string, preview: boolean): Promise<Outcome<DeployResult | DeploymentRecord>> {
    return this.#change(async () => {
      const site = await this.#state.permitted(domain, asDeployer(userId, claims), 'deploy');
      const uploading = uploadingDeployment(await this.#state.deployments.get(domain, id), domain, id, userId);
      const manifest = await readManifest(this.env.FILES, uploading.manifestKey!);
      const dropManifest: FollowUp = { kind: 'delete-objects', objects: [uploading.manifestKey!] };
      const commit = { domain, userId, claims, deploymentId: id, content: { manifest }, preview, labels: labelsOfRecord(uploading) };
      return commitManifest(this.#state, site, commit, [dropManifest], uploading.packs, uploading);
    });
  }

  /** Commits an incremental deploy whose one request brought its manifest and every missing blob. */
  deployManifest(commit: ManifestCommit): Promise<Outcome<DeployResult | DeploymentRecord>> {
    return this.#change(async () => {
      const { domain, userId, claims, upload } = commit;
      const site = await this.#state.permitted(domain, asDeployer(userId, claims), 'deploy');
      // A pack the Worker stored must still be there; one it hands over is written with the index.
      if (upload && !upload.bytes) await this.#state.claimUpload(domain, [upload.pack], [upload.pack]);
      return commitManifest(this.#state, site, commit, [], upload ? [upload.pack] : []);
    });
  }

  /** Unpublishes the site: by its owner through a credential that may act as its owner (unless it is suspended), or by an `operator` (scope `admin`), any site. */
  unpublish(domain: string, by: Requester | 'operator'): Promise<Outcome<null>> {
    return this.#change(async () => {
      const site = by === 'operator' ? administer(domain, await this.#state.load(domain)) : await this.#state.changeable(domain, by, 'own');
      const { DB } = this.env;
      // Objects uploaded from here on are not the unpublished site's: a site claimed again keeps them.
      const before = Date.now();
      const deploymentIds = (await this.#state.deployments.all(domain)).map((deployment) => deployment.id);
      const statements = [
        deleteSite(DB, domain),
        deleteDeploymentHosts(DB, deploymentIds),
        deleteMembersOf(DB, domain),
        deleteTrustOf(DB, domain),
        ...tickConfigurationsClock(DB, Date.now()),
        recordUnpublished(DB, domain),
      ];
      await this.#state.commits.commit(domain, statements, null, {
        now: [
          { kind: 'delete-site-objects', domain, before },
          { kind: 'purge-previews', deploymentIds },
          { kind: 'forget-certificate', domain },
          { kind: 'forget-traffic', traffic: { domain, claim: site.created } },
          { kind: 'notify', event: { type: 'site-delete', domain } },
        ],
        unpublish: true,
      }, { forgetAll: true });
      return null;
    });
  }

  /** Cancels the incremental deploy `id` that `userId` began and still uploads: collected now, as at its deadline. */
  cancel(domain: string, userId: string, id: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await cancelUpload(this.#state, domain, userId, id);
      return null;
    });
  }

  /** Deletes objects the Worker wrote for a change that did not take them (refused, failed, never asked), but none a deployment holds: under the lock, after any change left unsettled. */
  discard(domain: string, written: string[]): Promise<void> {
    return this.#exclusive(async () => {
      await this.#state.commits.recover();
      await discardUnheld(this.#state, domain, written);
    });
  }

  /** An operator replays the site's follow-ups kept as dead letters (./sweeps/follow-ups.ts); answers how many. */
  replayDeadLetters(domain: string): Promise<number> {
    return this.#exclusive(async () => {
      await this.#state.commits.recover();
      return this.#state.commits.replayDeadLetters(domain);
    });
  }

  /** An operator reconciles the site with D1 after a restore, or a loss of this object's storage (./commit/reconcile.ts). */
  reconcile(domain: string): Promise<ReconciledSite> {
    return this.#exclusive(async () => {
      await this.#state.commits.recover();
      return reconcile(this.#state, domain);
    });
  }

  /** The owner adds, changes or removes a member, or sets or removes the trust policy (./access/access-changes.ts). */
  changeAccess(domain: string, requester: Requester, change: AccessChange): Promise<Outcome<AccessAnswer>> {
    return this.#change(() => changeAccess(this.#state, domain, requester, change));
  }

  /** The owner sets who may open the site's hosts, or signs every visitor out (./access/protection-change.ts). */
  protect(domain: string, requester: Requester, change: ProtectionChange): Promise<Outcome<SiteProtection>> {
    return this.#change(() => changeProtection(this.#state, domain, requester, change));
  }

  /** An operator suspends the site for `reason` (./access/suspension.ts). */
  suspend(domain: string, reason: string): Promise<Outcome<{ suspension: Suspension; created: boolean }>> {
    return this.#change(async () => suspend(this.#state, administer(domain, await this.#state.load(domain)), reason));
  }

  /** An operator lifts the site's suspension. */
  resume(domain: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await resume(this.#state, administer(domain, await this.#state.load(domain)));
      return null;
    });
  }

  /** An operator suspended its owner, or lifted that (./access/suspension.ts): every location serves accordingly once this answers. */
  refreshOwner(domain: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await refreshOwnerSuspension(this.#state, await this.#state.load(domain));
      return null;
    });
  }

  /** Replaces or merge-patches the host options, or the metadata: see ./deploys/site-edits.ts. */
  editConfiguration(domain: string, userId: string, edit: Edit<unknown>, client: DeploymentClient): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => editConfiguration(this.#state, await this.#state.changeable(domain, asDeployer(userId)), userId, edit, client));
  }
  editMetadata(domain: string, userId: string, edit: Edit<SiteMetadata>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => editMetadata(this.#state, await this.#state.changeable(domain, asDeployer(userId)), edit));
  }

  /** Adds or replaces one file: see ./deploys/file-edits.ts. */
  putFile(domain: string, userId: string, upload: FileUpload, client: DeploymentClient): Promise<Outcome<{ created: boolean; entry: FileEntry }>> {
    return this.#change(async () => {
      // Its pack is complete: no unfinished upload is left to abort.
      if (upload.packKey) this.#state.commits.uploads.forget(upload.packKey);
      return putFile(this.#state, await this.#state.changeable(domain, asDeployer(userId)), userId, upload, client);
    });
  }

  deleteFile(domain: string, userId: string, path: string, client: DeploymentClient): Promise<Outcome<null>> {
    return this.#change(async () => {
      await deleteFile(this.#state, await this.#state.changeable(domain, asDeployer(userId)), userId, path, client);
      return null;
    });
  }

  /**
   * Deletes what nothing holds under the site's prefix once it is past the grace: what a deploy cut
   * before its commit left (./sweeps/orphans.ts). The daily cron asks (./sweeps/orphan-sweeps.ts). Queued behind
   * changes, after any left unsettled: no change commits while it reads what is held.
   */
  sweepOrphans(domain: string, hosted: readonly string[]): Promise<string[]> {
    return this.#exclusive(async () => {
      await this.#state.commits.recover();
      return sweepOrphans(this.env, domain, this.#state.commits, hosted);
    });
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      await this.#state.commits.recover();
      await collectAbandoned(this.#state).catch((error: unknown) => log.error('Collecting abandoned incremental deploys failed; the alarm retries it', { error }));
      await this.#state.commits.catchUp();
    });
  }
}
