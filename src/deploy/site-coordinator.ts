import { DurableObject } from 'cloudflare:workers';
import type { HostConfiguration } from '../configuration/parse';
import type { Env } from '../env';
import { deleteObjects, deleteSiteObjects } from '../storage/objects';
import {
  type Deployment,
  type SiteRecord,
  deleteSite,
  getSite,
  tickConfigurationsClock,
  upsertSite,
} from '../storage/sites';

/** The deploy result: the response of `PUT /v2/sites/<domain>` and its notification. */
export interface DeployResult {
  type: 'site-deploy';
  domain: string;
  isNewDomain: boolean;
  hasNewFiles: boolean;
  hasNewConfiguration: boolean;
}

/** A deploy whose files (if any) are already stored, waiting to become the live site. */
export interface DeployCommit {
  domain: string;
  userId: string;
  files?: Omit<Deployment, 'created'>;
  configuration?: HostConfiguration;
}

export type DeployOutcome = { ok: true; result: DeployResult } | { ok: false; reason: 'owned-by-another-user' };

export type UnpublishOutcome = 'unpublished' | 'not-found' | 'owned-by-another-user';

const garbagePrefix = 'garbage/';

/**
 * One per domain (`idFromName(domain)`): every change to a domain goes through here, one at
 * a time, so ownership checks, the switch to a new deployment and its events cannot interleave.
 * Uploads happen before, in the Worker, under fresh keys; only the commit is serialised.
 */
export class SiteCoordinator extends DurableObject<Env> {
  #queue: Promise<unknown> = Promise.resolve();
  /** The domain's record as last read or written here; undefined until loaded. Every change passes through this object, so it never goes stale. */
  #site: SiteRecord | null | undefined;

  async #load(domain: string): Promise<SiteRecord | null> {
    if (this.#site === undefined) this.#site = await getSite(this.env.DB, domain);
    return this.#site;
  }

  /** The live site, from memory in the steady state: what serving a request needs to know. */
  current(domain: string): Promise<SiteRecord | null> {
    return this.#exclusive(() => this.#load(domain));
  }

  /** Runs changes one after another. A DO's input gate alone would let them interleave at every await on D1 or R2. */
  #exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(change, change);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  deploy(commit: DeployCommit): Promise<DeployOutcome> {
    return this.#exclusive(async () => {
      const { DB } = this.env;
      const site = await this.#load(commit.domain);
      if (site && site.userId !== commit.userId) return { ok: false, reason: 'owned-by-another-user' } as const;

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
      const statements = [upsertSite(DB, next)];
      // A new site adds a configuration record ({} when none was sent): the set changed.
      if (commit.configuration || !site) statements.push(tickConfigurationsClock(DB, now));
      await DB.batch(statements);
      this.#site = next;

      const result: DeployResult = {
        type: 'site-deploy',
        domain: commit.domain,
        isNewDomain: !site,
        hasNewFiles: commit.files !== undefined,
        hasNewConfiguration: commit.configuration !== undefined,
      };
      await this.env.NOTIFICATIONS.send(result, { contentType: 'json' });
      if (!site) await this.env.CERTIFICATES.send({ domain: commit.domain }, { contentType: 'json' });
      if (commit.files && site?.deployment) await this.#retire(site.deployment, commit.files.packs);
      return { ok: true, result } as const;
    });
  }

  unpublish(domain: string, userId: string): Promise<UnpublishOutcome> {
    return this.#exclusive(async () => {
      const { DB } = this.env;
      const site = await this.#load(domain);
      if (!site) return 'not-found';
      if (site.userId !== userId) return 'owned-by-another-user';
      await DB.batch([deleteSite(DB, domain), tickConfigurationsClock(DB, Date.now())]);
      this.#site = null;
      await deleteSiteObjects(this.env.FILES, domain);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.delete([...(await this.ctx.storage.list({ prefix: garbagePrefix })).keys()]);
      await this.env.NOTIFICATIONS.send({ type: 'site-delete', domain }, { contentType: 'json' });
      return 'unpublished';
    });
  }

  /** Schedules the replaced deployment's objects for deletion, sparing packs the new one still uses. */
  async #retire(old: Deployment, packsInUse: readonly string[]): Promise<void> {
    const keys = [old.indexKey, ...old.packs.filter((pack) => !packsInUse.includes(pack))];
    // Reads that began before the switch may still need these objects: delete them later.
    const due = Date.now() + Number(this.env.RETIRED_DEPLOYMENT_GRACE_SECONDS) * 1000;
    await this.ctx.storage.put(`${garbagePrefix}${due}/${old.id}`, keys);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(due);
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      const batches = await this.ctx.storage.list<string[]>({ prefix: garbagePrefix });
      const now = Date.now();
      let next: number | undefined;
      for (const [key, objects] of batches) {
        const due = Number(key.slice(garbagePrefix.length).split('/')[0]);
        if (due > now) {
          next = Math.min(next ?? due, due);
          continue;
        }
        await deleteObjects(this.env.FILES, objects);
        await this.ctx.storage.delete(key);
      }
      if (next !== undefined) await this.ctx.storage.setAlarm(next);
    });
  }
}
