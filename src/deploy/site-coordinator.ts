import { DurableObject } from 'cloudflare:workers';
import { forgetCertificate } from '../certificates/unpublish';
import { checkHostConfiguration, type HostConfiguration } from '../configuration/parse';
import type { Env } from '../env';
import { applyMergePatch } from '../http/merge-patch';
import type { KeyedNotification } from '../events/notifications';
import { Problem, type ProblemData } from '../http/problem';
import {
  type FileEntry,
  type FileIndex,
  keys,
  readFileIndex,
  withFile,
  withoutFile,
  writeFileIndex,
} from '../storage/file-index';
import { deleteObjects, deleteSiteObjects } from '../storage/objects';
import type { UploadRecord } from '../storage/pack-writer';
import {
  type Deployment,
  type SiteRecord,
  deleteSite,
  getSite,
  lastSiteChange,
  recordSiteChange,
  tickConfigurationsClock,
  upsertSite,
} from '../storage/sites';
import type { DeployResult } from './deploy-result';
import { deployLimits, limitExceeded } from './limits';
import { checkMetadata, type SiteMetadata } from './metadata';
import { ownedByAnotherUser, siteNotFound } from './ownership';
import { fileAndFolder, foldersOf } from './paths';

/** A deploy whose files (if any) are already stored, waiting to become the live site. */
export interface DeployCommit {
  domain: string;
  userId: string;
  files?: Omit<Deployment, 'created'>;
  configuration?: HostConfiguration;
}

/** A replacement of the whole value, or an RFC 7396 merge patch applied to the current one. */
export type Edit<T> = { replace: T } | { patch: unknown };

/** One file already stored in `packKey` (null when it is empty), waiting to join the live deployment. */
export interface FileUpload {
  entry: Omit<FileEntry, 'pack'>;
  packKey: string | null;
}

/** What a change returns across RPC: its value, or the problem to answer (class instances do not cross). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: ProblemData };

export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw Problem.from(outcome.problem);
}

/** The events a change announces on the notifications queue (DESIGN: "Events"). */
type SiteEvent =
  | DeployResult
  | { type: 'site-delete' | 'configuration-update'; domain: string }
  | { type: 'files-update'; domain: string; path: string; change: 'added' | 'replaced' | 'deleted' };

/**
 * Work that follows a committed change: run at once in order, and retried by the alarm until
 * done, so a failed queue send or R2 delete neither fails a change that happened nor gets lost.
 * A notification carries the id of its change, so that one sent again is still logged once.
 */
type FollowUp =
  | { kind: 'notify'; event: SiteEvent; changeId?: string }
  | { kind: 'issue-certificate'; domain: string }
  | { kind: 'forget-certificate'; domain: string }
  | { kind: 'delete-objects'; objects: string[] }
  | { kind: 'delete-site-objects'; domain: string };

const followUpPrefix = 'follow-up/';
/** How soon work that failed (or a change whose outcome is unknown) is tried again. */
const retryMs = 10_000;

/**
 * A change's follow-ups, stored before its D1 commit and made due once the commit is known to
 * have happened. The commit's batch records `id` in D1, so a coordinator that stopped in
 * between asks D1 whether the change happened and keeps its follow-ups, or drops them.
 */
interface PendingChange {
  id: string;
  domain: string;
  now: FollowUp[];
  /** Due after the grace period: deletions that reads in flight may still need. */
  later?: FollowUp[];
  /** An unpublish: every object goes, so queued deletions of single objects are moot and every recorded upload is aborted now. */
  unpublish?: boolean;
  /** Objects written for this change alone: deleted when it did not commit. */
  orphans?: string[];
}

const pendingChangeKey = 'pending-change';

/**
 * A pack's multipart upload, recorded from before its first part until its pack is committed
 * or the upload aborted. R2 lists no unfinished upload: one whose Worker stopped is found only here.
 */
interface RecordedUpload {
  domain: string;
  key: string;
  uploadId: string;
  begun: number;
  /** Set by an unpublish: abort it now rather than once it is abandoned. */
  abortNow?: boolean;
}

const uploadPrefix = 'upload/';
/** A recorded upload this old is taken for abandoned: a deploy's body (100 MiB at most) arrives far sooner. */
export const abandonedUploadMs = 3_600_000;
/** R2 aborts unfinished uploads itself after 7 days (a bucket's default lifecycle rule): an older record has nothing left to abort. */
const uploadRecordLimitMs = 7 * 86_400_000;

/** When a follow-up is due: its key starts with that time. */
function dueOf(followUpKey: string): number {
  return Number(followUpKey.slice(followUpPrefix.length).split('/')[0]);
}

/** When a recorded upload is to be aborted. */
function uploadDueOf(upload: RecordedUpload): number {
  return upload.abortNow ? 0 : upload.begun + abandonedUploadMs;
}

/** The coordinator's RPC methods. Workers' stub typing cannot map `unknown`-valued records, so the stub is typed by the class. */
export type SiteCoordinatorStub = Pick<
  SiteCoordinator,
  | 'current'
  | 'deploy'
  | 'unpublish'
  | 'editConfiguration'
  | 'editMetadata'
  | 'putFile'
  | 'deleteFile'
  | 'beginUpload'
  | 'forgetUpload'
>;

/** The live record's version, and the record itself unless the caller already holds that version. */
export interface LiveSite {
  version: string;
  site?: SiteRecord | null;
  /**
   * The lease: how long, counted from when the caller sent its question, it may serve this
   * version without asking again. No change goes live, nor is its request answered, before
   * every lease granted on the version it replaces has run out. 0 while a change waits.
   */
  leaseMs: number;
}

/** A lease: how long an isolate may serve the record it was sent without asking again. */
export const siteLeaseMs = 450;
/**
 * Counted on top of each lease here, in case this object's clock lags (Workers' clocks
 * advance with I/O only): the caller's lease surely ends before the one counted here.
 * A change waits at most `siteLeaseMs + clockLagAllowanceMs` for the leases out.
 */
const clockLagAllowanceMs = 50;
/** Stored: a time no lease granted runs past, for an object that restarts. */
const leaseHorizonKey = 'lease-horizon';
/** How far past a lease the stored horizon is pushed: one storage write per this long while a site is served. */
const leaseHorizonStepMs = 5_000;

/** The coordinator of `domain`. */
export function siteCoordinator(env: Env, domain: string): SiteCoordinatorStub {
  return env.SITES.get(env.SITES.idFromName(domain)) as unknown as SiteCoordinatorStub;
}

/** Records the multipart uploads of `domain`'s packs with its coordinator, which aborts those a crash cut off. */
export function uploadRecord(env: Env, domain: string): UploadRecord {
  const coordinator = siteCoordinator(env, domain);
  return {
    begun: (key, uploadId) => coordinator.beginUpload(domain, key, uploadId),
    aborted: (key) => coordinator.forgetUpload(key),
  };
}

/**
 * One per domain (`idFromName(domain)`): every change to a domain goes through here, one at
 * a time, so ownership checks, the switch to a new deployment and its events cannot interleave.
 * Uploads happen before, in the Worker, under fresh keys; only the commit is serialised.
 */
export class SiteCoordinator extends DurableObject<Env> {
  #queue: Promise<unknown> = Promise.resolve();
  /** The domain's record as last read or written here; undefined until loaded. Every change passes through this object, so it never goes stale. */
  #site: SiteRecord | null | undefined;
  /** Names `#site`'s value: renewed with every change, and random so that a restarted object never reuses one. */
  #version = crypto.randomUUID();
  /** No lease granted runs past this time; stored, so that it holds for a restarted object too. */
  #leaseHorizon = this.ctx.storage.kv.get<number>(leaseHorizonKey) ?? 0;
  /** When the last lease granted on `#version` runs out, as far as this object knows. */
  #leasedUntil = this.#leaseHorizon;
  /** False while a change waits for the leases on the record it replaces to run out. */
  #leasing = true;

  /** Runs changes one after another. A DO's input gate alone would let them interleave at every await on D1 or R2. */
  #exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(change, change);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** An exclusive change whose problems are returned, not thrown, so they reach the Worker intact. */
  #change<T>(change: () => Promise<T>): Promise<Outcome<T>> {
    return this.#exclusive(async () => {
      await this.#recover();
      try {
        return { ok: true, value: await change() } as const;
      } catch (error) {
        if (error instanceof Problem) return { ok: false, problem: error.toData() } as const;
        throw error;
      }
    });
  }

  async #load(domain: string): Promise<SiteRecord | null> {
    if (this.#site === undefined) this.#site = await getSite(this.env.DB, domain);
    return this.#site;
  }

  /** The site, when it exists and `userId` owns it. */
  async #owned(domain: string, userId: string): Promise<SiteRecord> {
    const site = await this.#load(domain);
    if (!site) throw siteNotFound(domain);
    if (site.userId !== userId) throw ownedByAnotherUser(domain);
    return site;
  }

  /**
   * Commits a change and what follows it, so that a stop at any instant ends in the old state,
   * or in the new one with every follow-up: the follow-ups are stored pending on the change
   * first (with an alarm, should this object stop), the D1 batch records the change's id, and
   * only then are they due. Then `live` goes live and the follow-ups run.
   */
  async #commit(
    domain: string,
    statements: D1PreparedStatement[],
    live: SiteRecord | null,
    followUps: Omit<PendingChange, 'id' | 'domain'>,
  ): Promise<void> {
    const { DB } = this.env;
    const change: PendingChange = { id: crypto.randomUUID(), domain, ...followUps };
    for (const work of change.now) if (work.kind === 'notify') work.changeId = change.id;
    this.ctx.storage.kv.put(pendingChangeKey, change);
    await this.#scheduleAlarm();
    try {
      await DB.batch([...statements, recordSiteChange(DB, domain, change.id)]);
    } catch (error) {
      // A batch that failed may have committed all the same.
      if (!(await this.#resolve(change))) throw error;
    }
    this.#settle(change);
    await this.#setLive(live);
    await this.#catchUp();
  }

  /** Whether `change` committed, asked of D1; one that did not is forgotten and its orphans deleted. */
  async #resolve(change: PendingChange): Promise<boolean> {
    if ((await lastSiteChange(this.env.DB, change.domain)) === change.id) return true;
    await deleteObjects(this.env.FILES, change.orphans ?? []);
    this.ctx.storage.kv.delete(pendingChangeKey);
    return false;
  }

  /** Makes a committed change's follow-ups due, in one storage transaction. */
  #settle(change: PendingChange): void {
    const { kv } = this.ctx.storage;
    this.ctx.storage.transactionSync(() => {
      if (change.unpublish) {
        for (const [key, work] of [...kv.list<FollowUp>({ prefix: followUpPrefix })]) if (work.kind === 'delete-objects') kv.delete(key);
        for (const [key, upload] of [...kv.list<RecordedUpload>({ prefix: uploadPrefix })]) kv.put(key, { ...upload, abortNow: true });
      }
      const time = Date.now();
      for (const work of change.now) kv.put(this.#followUpKey(time), work);
      const due = time + Number(this.env.RETIRED_DEPLOYMENT_GRACE_SECONDS) * 1000;
      for (const work of change.later ?? []) kv.put(this.#followUpKey(due), work);
      kv.delete(pendingChangeKey);
    });
  }

  /**
   * Settles a change this object began but did not see through (it stopped between its D1
   * commit and its follow-ups, say). Runs before any other change, and in the alarm.
   */
  async #recover(): Promise<void> {
    const change = this.ctx.storage.kv.get<PendingChange>(pendingChangeKey);
    if (!change || !(await this.#resolve(change))) return;
    this.#settle(change);
    // An object that kept running still holds the record from before the change.
    if (this.#site !== undefined) await this.#setLive(await getSite(this.env.DB, change.domain));
  }

  #seq = Date.now() * 1000;

  #followUpKey(due: number): string {
    return `${followUpPrefix}${String(due).padStart(15, '0')}/${String(this.#seq++).padStart(20, '0')}`;
  }

  /** Runs what is due: follow-ups, then recorded uploads to abort; then sets the alarm for what remains. */
  async #catchUp(): Promise<void> {
    await this.#runFollowUps();
    await this.#abortUploads();
    await this.#scheduleAlarm();
  }

  /** Runs due follow-ups in order, stopping at the first failure; the alarm takes over from there. */
  async #runFollowUps(): Promise<void> {
    for (const [key, work] of [...this.ctx.storage.kv.list<FollowUp>({ prefix: followUpPrefix })]) {
      if (dueOf(key) > Date.now()) return;
      try {
        await this.#perform(work);
      } catch (error) {
        console.error(`Follow-up ${work.kind} failed; retrying in ${retryMs / 1000} s`, error);
        return;
      }
      this.ctx.storage.kv.delete(key);
    }
  }

  async #perform(work: FollowUp): Promise<unknown> {
    switch (work.kind) {
      case 'notify': {
        const body: KeyedNotification | SiteEvent = work.changeId ? { key: work.changeId, event: work.event } : work.event;
        return this.env.NOTIFICATIONS.send(body, { contentType: 'json' });
      }
      case 'issue-certificate':
        return this.env.CERTIFICATES.send({ domain: work.domain }, { contentType: 'json' });
      case 'forget-certificate':
        return forgetCertificate(this.env, work.domain);
      case 'delete-objects':
        return deleteObjects(this.env.FILES, work.objects);
      case 'delete-site-objects':
        return deleteSiteObjects(this.env.FILES, work.domain);
    }
  }

  /**
   * Aborts the recorded uploads that are abandoned or that an unpublish cut off. One whose
   * pack was completed but never committed (its Worker stopped in between) leaves an object
   * instead: deleted unless the live deployment uses it.
   */
  async #abortUploads(): Promise<void> {
    const { FILES } = this.env;
    for (const [key, upload] of [...this.ctx.storage.kv.list<RecordedUpload>({ prefix: uploadPrefix })]) {
      if (uploadDueOf(upload) > Date.now()) continue;
      try {
        await FILES.resumeMultipartUpload(upload.key, upload.uploadId).abort();
        const site = await this.#load(upload.domain);
        if (!site?.deployment?.packs.includes(upload.key)) await deleteObjects(FILES, [upload.key]);
      } catch (error) {
        const expired = Date.now() - upload.begun >= uploadRecordLimitMs;
        console.error(`Aborting the upload of ${upload.key} failed; ${expired ? 'R2 has aborted it by now' : `retrying in ${retryMs / 1000} s`}`, error);
        if (!expired) continue;
      }
      this.ctx.storage.kv.delete(key);
    }
  }

  /** Sets the alarm for the earliest work left (work already due has just failed: retried later), or clears it. */
  #scheduleAlarm(): Promise<void> {
    const { kv } = this.ctx.storage;
    const now = Date.now();
    const times: number[] = [];
    if (kv.get(pendingChangeKey)) times.push(now);
    for (const [key] of kv.list({ prefix: followUpPrefix, limit: 1 })) times.push(dueOf(key));
    for (const [, upload] of kv.list<RecordedUpload>({ prefix: uploadPrefix })) times.push(uploadDueOf(upload));
    if (times.length === 0) return this.ctx.storage.deleteAlarm();
    const next = Math.min(...times);
    return this.ctx.storage.setAlarm(next > now ? next : now + retryMs);
  }

  /**
   * Records a pack's multipart upload before its first part is written (src/storage/pack-writer.ts),
   * so that one cut off by a crash is aborted later. One more call per deploy of a pack over one
   * part: R2 offers no other way to find unfinished uploads. Not queued behind changes: nothing
   * it writes is theirs.
   */
  async beginUpload(domain: string, key: string, uploadId: string): Promise<void> {
    const upload: RecordedUpload = { domain, key, uploadId, begun: Date.now() };
    this.ctx.storage.kv.put(uploadPrefix + key, upload);
    await this.#scheduleAlarm();
  }

  /** The Worker aborted the upload of `key`. */
  async forgetUpload(key: string): Promise<void> {
    this.#forgetUpload(key);
  }

  /** The upload of `key` was aborted, or completed: nothing is left to abort. */
  #forgetUpload(key: string): void {
    this.ctx.storage.kv.delete(uploadPrefix + key);
  }

  /** Deleting the replaced deployment's objects, sparing packs the new one still uses. */
  #retirement(old: Deployment, packsInUse: readonly string[]): FollowUp {
    return { kind: 'delete-objects', objects: [old.indexKey, ...old.packs.filter((pack) => !packsInUse.includes(pack))] };
  }

  /**
   * The live site, from memory in the steady state: what serving a request needs to know.
   * Not queued behind changes: `#site` only ever holds a committed record. Asked with the
   * version of a record the caller keeps, it answers the live version, and the record only
   * when that version differs: the steady state clones no record. It also grants a lease
   * on that version (none while a change is waiting to go live).
   */
  current(domain: string): Promise<SiteRecord | null>;
  current(domain: string, kept: { version?: string }): Promise<LiveSite>;
  async current(domain: string, kept?: { version?: string }): Promise<SiteRecord | null | LiveSite> {
    if (this.#site === undefined) await this.#exclusive(() => this.#load(domain));
    const site = this.#site ?? null;
    if (!kept) return site;
    const lease = this.#leasing ? this.#grantLease() : 0;
    return kept.version === this.#version ? { version: this.#version, leaseMs: lease } : { version: this.#version, site, leaseMs: lease };
  }

  /** Counts a lease from now, which is after the caller sent its question, and answers its length. */
  #grantLease(): number {
    const until = Date.now() + siteLeaseMs + clockLagAllowanceMs;
    this.#leasedUntil = Math.max(this.#leasedUntil, until);
    if (until > this.#leaseHorizon) {
      this.#leaseHorizon = until + leaseHorizonStepMs;
      // The output gate holds the answer until this is stored.
      this.ctx.storage.kv.put(leaseHorizonKey, this.#leaseHorizon);
    }
    return siteLeaseMs;
  }

  /**
   * Keeps `site` as the live record, under a new version, once no isolate may still serve
   * the old one: leases stop, the granted ones run out, and only then does the change go
   * live and its request get its answer. So the next request anywhere sees the change, while
   * in the steady state serving asks this object once per lease rather than once per request.
   */
  async #setLive(site: SiteRecord | null): Promise<void> {
    this.#leasing = false;
    // Workers' clocks advance with I/O only, so Date.now() may lag and make this wait longer, never shorter.
    const wait = this.#leasedUntil - Date.now();
    if (wait > 0) await scheduler.wait(wait);
    this.#site = site;
    this.#version = crypto.randomUUID();
    this.#leasing = true;
  }

  deploy(commit: DeployCommit): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const site = await this.#load(commit.domain);
      if (site && site.userId !== commit.userId) throw ownedByAnotherUser(commit.domain);
      // An unpublish while this deploy uploaded deleted everything under the site, its new files too.
      if (commit.files && !(await this.env.FILES.head(commit.files.indexKey))) {
        throw new Problem('conflict', `The site ${commit.domain} was unpublished while this deploy uploaded; deploy again.`);
      }
      // Its packs are complete: no unfinished upload is left to abort.
      for (const pack of commit.files?.packs ?? []) this.#forgetUpload(pack);
      const now = Date.now();
      const next: SiteRecord = {
        domain: commit.domain,
        userId: commit.userId,
        created: site?.created ?? now,
        modified: now,
        configuration: commit.configuration ?? site?.configuration ?? {},
        configurationModified: commit.configuration || !site ? now : site.configurationModified,
        metadata: site?.metadata ?? {},
        deployment: commit.files ? { ...commit.files, created: now } : (site?.deployment ?? null),
      };
      const { DB } = this.env;
      const statements = [upsertSite(DB, next)];
      // A new site adds a configuration record ({} when none was sent): the set changed.
      if (commit.configuration !== undefined || !site) statements.push(tickConfigurationsClock(DB, now));
      const result: DeployResult = {
        type: 'site-deploy',
        domain: commit.domain,
        isNewDomain: !site,
        hasNewFiles: commit.files !== undefined,
        hasNewConfiguration: commit.configuration !== undefined,
      };
      await this.#commit(commit.domain, statements, next, {
        now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain: commit.domain } as const])],
        later: commit.files && site?.deployment ? [this.#retirement(site.deployment, commit.files.packs)] : [],
        orphans: commit.files ? [commit.files.indexKey, ...commit.files.packs] : [],
      });
      return result;
    });
  }

  unpublish(domain: string, userId: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await this.#owned(domain, userId);
      const { DB } = this.env;
      await this.#commit(domain, [deleteSite(DB, domain), tickConfigurationsClock(DB, Date.now())], null, {
        now: [
          { kind: 'delete-site-objects', domain },
          { kind: 'forget-certificate', domain },
          { kind: 'notify', event: { type: 'site-delete', domain } },
        ],
        unpublish: true,
      });
      return null;
    });
  }

  /** Replaces or merge-patches the host options; validated after merging. */
  editConfiguration(domain: string, userId: string, edit: Edit<unknown>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => {
      const site = await this.#owned(domain, userId);
      const configuration = checkHostConfiguration(
        'replace' in edit ? edit.replace : applyMergePatch(site.configuration, edit.patch),
      );
      const now = Date.now();
      const next = { ...site, configuration, configurationModified: now, modified: now };
      const { DB } = this.env;
      await this.#commit(domain, [upsertSite(DB, next), tickConfigurationsClock(DB, now)], next, {
        now: [{ kind: 'notify', event: { type: 'configuration-update', domain } }],
      });
      return next;
    });
  }

  editMetadata(domain: string, userId: string, edit: Edit<SiteMetadata>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => {
      const site = await this.#owned(domain, userId);
      const metadata = checkMetadata('replace' in edit ? edit.replace : applyMergePatch(site.metadata, edit.patch));
      const next = { ...site, metadata, modified: Date.now() };
      await this.#commit(domain, [upsertSite(this.env.DB, next)], next, { now: [] });
      return next;
    });
  }

  /** Adds or replaces one file: a new deployment sharing every other file's stored bytes. */
  putFile(domain: string, userId: string, upload: FileUpload): Promise<Outcome<{ created: boolean; entry: FileEntry }>> {
    return this.#change(async () => {
      // Its pack is complete: no unfinished upload is left to abort.
      if (upload.packKey) this.#forgetUpload(upload.packKey);
      const site = await this.#owned(domain, userId);
      const index = await this.#index(site);
      const { path } = upload.entry;
      const previous = index.files.find((file) => file.path === path);
      const paths = new Set(index.files.map((file) => file.path));
      const clash = foldersOf(path).find((folder) => paths.has(folder)) ?? (index.files.some((file) => file.path.startsWith(`${path}/`)) ? path : undefined);
      if (clash !== undefined) throw fileAndFolder(clash);
      const limits = deployLimits(this.env);
      const fileCount = index.files.length + (previous ? 0 : 1);
      const totalBytes = (site.deployment?.totalBytes ?? 0) - (previous?.size ?? 0) + upload.entry.size;
      if (fileCount > limits.maxFiles) {
        throw limitExceeded(limits, 'maxFiles', `A site may contain at most ${limits.maxFiles} files`);
      }
      if (totalBytes > limits.maxTotalBytes) {
        throw limitExceeded(limits, 'maxTotalBytes', `The site's files would add up to more than ${limits.maxTotalBytes} bytes`);
      }
      const now = Date.now();
      const next = withFile(index, upload.entry, upload.packKey, crypto.randomUUID(), now);
      await this.#switchFiles(site, next, now, upload.packKey, {
        type: 'files-update',
        domain,
        path: upload.entry.path,
        change: previous ? 'replaced' : 'added',
      });
      return { created: !previous, entry: next.files.find((file) => file.path === upload.entry.path)! };
    });
  }

  deleteFile(domain: string, userId: string, path: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      const site = await this.#owned(domain, userId);
      const index = await this.#index(site);
      if (!index.files.some((file) => file.path === path)) {
        throw new Problem('not-found', `There is no file ${JSON.stringify(path)} on ${domain}.`);
      }
      const now = Date.now();
      await this.#switchFiles(site, withoutFile(index, path, crypto.randomUUID(), now), now, null, {
        type: 'files-update',
        domain,
        path,
        change: 'deleted',
      });
      return null;
    });
  }

  async #index(site: SiteRecord): Promise<FileIndex> {
    if (!site.deployment) return { version: 1, deploymentId: '', created: 0, packs: [], files: [] };
    return readFileIndex(this.env.FILES, site.deployment.indexKey);
  }

  /**
   * Stores `index` as the site's new deployment, announces `event` and retires the deployment it
   * replaces. `newPack` holds the bytes this change added, if any.
   */
  async #switchFiles(site: SiteRecord, index: FileIndex, now: number, newPack: string | null, event: SiteEvent): Promise<void> {
    const indexKey = keys.index(site.domain, index.deploymentId);
    await writeFileIndex(this.env.FILES, indexKey, index);
    const deployment: Deployment = {
      id: index.deploymentId,
      created: now,
      indexKey,
      packs: index.packs,
      fileCount: index.files.length,
      totalBytes: index.files.reduce((sum, file) => sum + file.size, 0),
    };
    const next = { ...site, modified: now, deployment };
    await this.#commit(site.domain, [upsertSite(this.env.DB, next)], next, {
      now: [{ kind: 'notify', event }],
      later: site.deployment ? [this.#retirement(site.deployment, index.packs)] : [],
      orphans: newPack ? [indexKey, newPack] : [indexKey],
    });
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      await this.#recover();
      await this.#catchUp();
    });
  }
}
