import { DurableObject } from 'cloudflare:workers';
import { forgetCertificate } from '../certificates/unpublish';
import { checkHostConfiguration, type HostConfiguration } from '../configuration/parse';
import type { Env } from '../env';
import { applyMergePatch } from '../http/merge-patch';
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
import {
  type Deployment,
  type SiteRecord,
  deleteSite,
  getSite,
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
 * Work that follows a committed change: stored in the object's storage right after the D1
 * commit, run at once in order, and retried by the alarm until done, so a failed queue send
 * or R2 delete neither fails a change that happened nor gets lost.
 */
type FollowUp =
  | { kind: 'notify'; event: SiteEvent }
  | { kind: 'issue-certificate'; domain: string }
  | { kind: 'forget-certificate'; domain: string }
  | { kind: 'delete-objects'; objects: string[] }
  | { kind: 'delete-site-objects'; domain: string };

const followUpPrefix = 'follow-up/';
const followUpRetryMs = 10_000;

/** The coordinator's RPC methods. Workers' stub typing cannot map `unknown`-valued records, so the stub is typed by the class. */
export type SiteCoordinatorStub = Pick<
  SiteCoordinator,
  'current' | 'deploy' | 'unpublish' | 'editConfiguration' | 'editMetadata' | 'putFile' | 'deleteFile'
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

  /** Stores the new record (and ticks the configurations clock when asked) in one D1 transaction. */
  async #save(next: SiteRecord, configurationsChanged: boolean): Promise<void> {
    const { DB } = this.env;
    const statements = [upsertSite(DB, next)];
    if (configurationsChanged) statements.push(tickConfigurationsClock(DB, next.modified));
    await DB.batch(statements);
    await this.#setLive(next);
  }

  #seq = Date.now() * 1000;

  /** Stores follow-ups (`dueMs` later for deletions readers may still need), then runs those due. */
  async #followUp(now: FollowUp[], later: FollowUp[] = []): Promise<void> {
    const key = (due: number) => `${followUpPrefix}${String(due).padStart(15, '0')}/${String(this.#seq++).padStart(20, '0')}`;
    const entries: Record<string, FollowUp> = {};
    const time = Date.now();
    for (const work of now) entries[key(time)] = work;
    const due = time + Number(this.env.RETIRED_DEPLOYMENT_GRACE_SECONDS) * 1000;
    for (const work of later) entries[key(due)] = work;
    await this.ctx.storage.put(entries);
    await this.#runFollowUps();
  }

  /** Runs due follow-ups in order, stopping at the first failure; the alarm takes over from there. */
  async #runFollowUps(): Promise<void> {
    const pending = await this.ctx.storage.list<FollowUp>({ prefix: followUpPrefix });
    let next: number | undefined;
    for (const [key, work] of pending) {
      const due = Number(key.slice(followUpPrefix.length).split('/')[0]);
      if (due > Date.now()) {
        next = due;
        break;
      }
      try {
        await this.#perform(work);
      } catch (error) {
        console.error(`Follow-up ${work.kind} failed; retrying in ${followUpRetryMs / 1000} s`, error);
        next = Date.now() + followUpRetryMs;
        break;
      }
      await this.ctx.storage.delete(key);
    }
    if (next === undefined) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  async #perform(work: FollowUp): Promise<unknown> {
    switch (work.kind) {
      case 'notify':
        return this.env.NOTIFICATIONS.send(work.event, { contentType: 'json' });
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
      const now = Date.now();
      await this.#save(
        {
          domain: commit.domain,
          userId: commit.userId,
          created: site?.created ?? now,
          modified: now,
          configuration: commit.configuration ?? site?.configuration ?? {},
          configurationModified: commit.configuration || !site ? now : site.configurationModified,
          metadata: site?.metadata ?? {},
          deployment: commit.files ? { ...commit.files, created: now } : (site?.deployment ?? null),
        },
        // A new site adds a configuration record ({} when none was sent): the set changed.
        commit.configuration !== undefined || !site,
      );
      const result: DeployResult = {
        type: 'site-deploy',
        domain: commit.domain,
        isNewDomain: !site,
        hasNewFiles: commit.files !== undefined,
        hasNewConfiguration: commit.configuration !== undefined,
      };
      await this.#followUp(
        [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain: commit.domain } as const])],
        commit.files && site?.deployment ? [this.#retirement(site.deployment, commit.files.packs)] : [],
      );
      return result;
    });
  }

  unpublish(domain: string, userId: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await this.#owned(domain, userId);
      const { DB } = this.env;
      await DB.batch([deleteSite(DB, domain), tickConfigurationsClock(DB, Date.now())]);
      await this.#setLive(null);
      // Every object goes, so pending deletions of single objects are moot.
      await this.ctx.storage.delete([...(await this.ctx.storage.list({ prefix: followUpPrefix })).keys()]);
      await this.#followUp([
        { kind: 'delete-site-objects', domain },
        { kind: 'forget-certificate', domain },
        { kind: 'notify', event: { type: 'site-delete', domain } },
      ]);
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
      await this.#save(next, true);
      await this.#followUp([{ kind: 'notify', event: { type: 'configuration-update', domain } }]);
      return next;
    });
  }

  editMetadata(domain: string, userId: string, edit: Edit<SiteMetadata>): Promise<Outcome<SiteRecord>> {
    return this.#change(async () => {
      const site = await this.#owned(domain, userId);
      const metadata = checkMetadata('replace' in edit ? edit.replace : applyMergePatch(site.metadata, edit.patch));
      const next = { ...site, metadata, modified: Date.now() };
      await this.#save(next, false);
      return next;
    });
  }

  /** Adds or replaces one file: a new deployment sharing every other file's stored bytes. */
  putFile(domain: string, userId: string, upload: FileUpload): Promise<Outcome<{ created: boolean; entry: FileEntry }>> {
    return this.#change(async () => {
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
      await this.#switchFiles(site, next, now, {
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
      await this.#switchFiles(site, withoutFile(index, path, crypto.randomUUID(), now), now, {
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

  /** Stores `index` as the site's new deployment, announces `event` and retires the deployment it replaces. */
  async #switchFiles(site: SiteRecord, index: FileIndex, now: number, event: SiteEvent): Promise<void> {
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
    try {
      await this.#save({ ...site, modified: now, deployment }, false);
    } catch (error) {
      await deleteObjects(this.env.FILES, [indexKey]);
      throw error;
    }
    await this.#followUp(
      [{ kind: 'notify', event }],
      site.deployment ? [this.#retirement(site.deployment, index.packs)] : [],
    );
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(() => this.#runFollowUps());
  }
}
