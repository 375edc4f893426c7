import { DurableObject } from 'cloudflare:workers';
import { checkHostConfiguration } from '../configuration/parse';
import type { DeployResult } from '../shared/api-types';
import { deployLimits } from '../deploy/limits';
import { checkMetadata, type SiteMetadata } from '../deploy/metadata';
import type { Env } from '../env';
import { applyMergePatch } from '../http/merge-patch';
import { Problem } from '../http/problem';
import { type FileEntry, type FileIndex, keys, readFileIndex, withFile, withoutFile, writeFileIndex } from '../storage/file-index';
import {
  type Deployment,
  type SiteRecord,
  deleteSite,
  getSite,
  tickConfigurationsClock,
  upsertSite,
} from '../storage/sites';
import { authorize } from './access';
import type { DeployCommit, Edit, FileUpload } from './changes';
import { checkFilesAndFolders, checkSiteSize } from './file-rules';
import { Commits } from './commits';
import { type SiteEvent, retirement } from './follow-ups';
import { LiveRecord, type LiveSite } from './freshness';
import { type Outcome, outcomeOf } from './outcome';

/**
 * One per domain (`idFromName(domain)`): every change to a domain goes through here, one at
 * a time, so access checks, the switch to a new deployment and its events cannot interleave.
 * Uploads happen before, in the Worker, under fresh keys; only the commit is serialised.
 * How a change is committed and recovered is in ./commits.ts (what follows it: ./follow-ups.ts),
 * the live record and its leases in ./freshness.ts,
 * recorded uploads in ./uploads.ts; the Worker calls this object through ./client.ts.
 */
export class SiteCoordinator extends DurableObject<Env> {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #live = new LiveRecord(this.ctx.storage);
  readonly #commits = new Commits(this.ctx.storage, () => this.env, this.#live);

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
   * The live site, from memory in the steady state: what serving a request needs to know. Not
   * queued behind changes: the live record only ever holds a committed record. Asked with the
   * version an isolate keeps, it answers as ./freshness.ts says.
   */
  current(domain: string): Promise<SiteRecord | null>;
  current(domain: string, kept: { version?: string }): Promise<LiveSite>;
  async current(domain: string, kept?: { version?: string }): Promise<SiteRecord | null | LiveSite> {
    if (this.#live.site === undefined) await this.#exclusive(() => this.#load(domain));
    return kept ? this.#live.answer(kept.version) : (this.#live.site ?? null);
  }

  deploy(commit: DeployCommit): Promise<Outcome<DeployResult>> {
    return this.#change(async () => {
      const { domain } = commit;
      const site = await this.#load(domain);
      authorize({ userId: commit.userId }, domain, site?.userId ?? null, 'deploy');
      // An unpublish while this deploy uploaded deleted everything under the site, its new files too.
      if (commit.files && !(await this.env.FILES.head(commit.files.indexKey))) {
        throw new Problem('conflict', `The site ${domain} was unpublished while this deploy uploaded; deploy again.`);
      }
      // Its packs are complete: no unfinished upload is left to abort.
      for (const pack of commit.files?.packs ?? []) this.#commits.uploads.forget(pack);
      const now = Date.now();
      const next: SiteRecord = {
        domain,
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
        domain,
        isNewDomain: !site,
        hasNewFiles: commit.files !== undefined,
        hasNewConfiguration: commit.configuration !== undefined,
      };
      await this.#commits.commit(domain, statements, next, {
        now: [{ kind: 'notify', event: result }, ...(site ? [] : [{ kind: 'issue-certificate', domain } as const])],
        later: commit.files && site?.deployment ? [retirement(site.deployment, commit.files.packs)] : [],
        orphans: commit.files ? [commit.files.indexKey, ...commit.files.packs] : [],
      });
      return result;
    });
  }

  unpublish(domain: string, userId: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      await this.#changeable(domain, userId);
      const { DB } = this.env;
      await this.#commits.commit(domain, [deleteSite(DB, domain), tickConfigurationsClock(DB, Date.now())], null, {
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
      const site = await this.#changeable(domain, userId);
      const configuration = checkHostConfiguration('replace' in edit ? edit.replace : applyMergePatch(site.configuration, edit.patch));
      const now = Date.now();
      const next = { ...site, configuration, configurationModified: now, modified: now };
      const { DB } = this.env;
      await this.#commits.commit(domain, [upsertSite(DB, next), tickConfigurationsClock(DB, now)], next, {
        now: [{ kind: 'notify', event: { type: 'configuration-update', domain } }],
      });
      return next;
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

  /** Adds or replaces one file: a new deployment sharing every other file's stored bytes. */
  putFile(domain: string, userId: string, upload: FileUpload): Promise<Outcome<{ created: boolean; entry: FileEntry }>> {
    return this.#change(async () => {
      // Its pack is complete: no unfinished upload is left to abort.
      if (upload.packKey) this.#commits.uploads.forget(upload.packKey);
      const site = await this.#changeable(domain, userId);
      const index = await this.#index(site);
      const { path } = upload.entry;
      const previous = index.files.find((file) => file.path === path);
      checkFilesAndFolders(new Set([...index.files.map((file) => file.path), path]));
      const totalBytes = (site.deployment?.totalBytes ?? 0) - (previous?.size ?? 0) + upload.entry.size;
      checkSiteSize(deployLimits(this.env), index.files.length + (previous ? 0 : 1), totalBytes);
      const now = Date.now();
      const next = withFile(index, upload.entry, upload.packKey, crypto.randomUUID(), now);
      await this.#switchFiles(site, next, now, upload.packKey, { type: 'files-update', domain, path, change: previous ? 'replaced' : 'added' });
      return { created: !previous, entry: next.files.find((file) => file.path === path)! };
    });
  }

  deleteFile(domain: string, userId: string, path: string): Promise<Outcome<null>> {
    return this.#change(async () => {
      const site = await this.#changeable(domain, userId);
      const index = await this.#index(site);
      if (!index.files.some((file) => file.path === path)) {
        throw new Problem('not-found', `There is no file ${JSON.stringify(path)} on ${domain}.`);
      }
      const now = Date.now();
      await this.#switchFiles(site, withoutFile(index, path, crypto.randomUUID(), now), now, null, { type: 'files-update', domain, path, change: 'deleted' });
      return null;
    });
  }

  async #index(site: SiteRecord): Promise<FileIndex> {
    if (!site.deployment) return { version: 1, deploymentId: '', created: 0, packs: [], files: [] };
    return readFileIndex(this.env.FILES, site.deployment.indexKey);
  }

  /** Stores `index` as the site's new deployment, announces `event` and retires the deployment it replaces; `newPack` holds the bytes this change added. */
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
    await this.#commits.commit(site.domain, [upsertSite(this.env.DB, next)], next, {
      now: [{ kind: 'notify', event }],
      later: site.deployment ? [retirement(site.deployment, index.packs)] : [],
      orphans: newPack ? [indexKey, newPack] : [indexKey],
    });
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      await this.#commits.recover();
      await this.#commits.catchUp();
    });
  }
}
