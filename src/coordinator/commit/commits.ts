/**
 * The room commit/ owns the two-phase commit with D1 of the changes the class (../coordinator.ts)
 * runs one at a time under its lock: this file runs a change's D1 batch with its pending records
 * and follow-ups and recovers after a stop; ./site-state.ts holds a site's state between changes
 * and commits a deployment under the quotas; ./reconcile.ts brings a site's records in line with
 * D1 after a restore. It is the one room that runs a change's batch on D1;
 * it may call sweeps/, records/, edge/ and access/ below it.
 *
 * How the coordinator commits a change so that a stop at any instant ends in the old state or
 * in the new one with everything that follows it (../sweeps/follow-ups.ts), and how it recovers, runs
 * what is due and keeps its alarm set for the rest: follow-ups, recorded uploads, the
 * deadlines of incremental deploys and a purge not handed over (../edge/freshness.ts). An object has one alarm: it is set for the earliest of them.
 */
import type { Env } from '../../platform/env';
import { getSite, recordSiteChange, type SiteRecord, stampedConfigurationTime } from '../../storage/sites-table';
import { keptFollowUps } from '../../storage/dead-letters';
import { type BlobChange, BlobIndex } from '../records/blob-index';
import { type DeploymentChange, DeploymentStore } from '../records/deployment-store';
import { claimOf } from '../sweeps/claims';
import { FollowUps, type PendingChange } from '../sweeps/follow-ups';
import type { LiveRecord } from '../edge/freshness';
import { IncrementalDeadlines } from '../records/incremental-deadlines';
import { type ObjectChange, ObjectLedger } from '../records/object-ledger';
import { deleteIfUnheld, deleteUnheld } from '../sweeps/orphans';
import { RecordedUploads } from '../records/uploads';

/** How soon the alarm tries again work that failed, or a change whose outcome is unknown. */
const retryMs = 10_000;

/** What a change does to the coordinator's own storage, pending until it is settled: its blob index, its deployments and its object ledger. */
export type StorageChange = BlobChange & DeploymentChange & ObjectChange;

export class Commits {
  readonly uploads: RecordedUploads;
  readonly deadlines: IncrementalDeadlines;
  readonly blobs: BlobIndex;
  readonly deployments: DeploymentStore;
  readonly objects: ObjectLedger;
  readonly #followUps: FollowUps;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
    private readonly live: LiveRecord,
  ) {
    this.#followUps = new FollowUps(storage, envOf, {
      before: (domain, cutoff) => deleteUnheld(envOf(), domain, this, cutoff),
      of: (domain, objects) => deleteIfUnheld(envOf(), domain, this, objects),
    });
    this.uploads = new RecordedUploads(storage, () => envOf().FILES);
    this.deadlines = new IncrementalDeadlines(storage);
    this.blobs = new BlobIndex(storage, envOf);
    this.deployments = new DeploymentStore(storage, envOf);
    this.objects = new ObjectLedger(storage, envOf);
  }

  /** Resolves once `domain`'s rows written to D1 before its coordinator kept them are here (../records/blob-index.ts, ../records/deployment-store.ts, ../records/object-ledger.ts): call it before reading them. */
  async moved(domain: string): Promise<void> {
    await Promise.all([this.blobs.moved(domain), this.deployments.moved(domain), this.objects.moved(domain)]);
  }

  /**
   * Commits a change and what follows it: the follow-ups are stored pending on the change (with
   * an alarm, should the object stop), the D1 batch records the change's id, and only then are
   * they settled. Then `live` goes live (undefined: the live site is unchanged), as committed (with
   * its configuration's stamp, see tickConfigurationsClock), and the follow-ups run; answers it so.
   * What it does to the blob index, the deployments and the object ledger (`stored`) is pending
   * with the follow-ups, and the batch changes D1's byte totals as much.
   */
  async commit(
    domain: string,
    statements: D1PreparedStatement[],
    live: SiteRecord | null | undefined,
    followUps: Omit<PendingChange, 'id' | 'domain'>,
    stored: StorageChange = {},
  ): Promise<SiteRecord | null | undefined> {
    const { DB } = this.envOf();
    // The claim the change is made for: the site it makes (a claim's first change), else the one it changes or unpublishes.
    const change: PendingChange = { id: crypto.randomUUID(), domain, claim: claimOf(live ?? this.live.site), ...followUps };
    await this.moved(domain);
    const totals = this.storage.transactionSync(() => {
      this.#followUps.pend(change);
      this.blobs.pend(stored);
      this.deployments.pend(stored);
      return this.objects.pend(domain, stored);
    });
    await this.scheduleAlarm();
    let committed = live;
    try {
      const stamped = stampedConfigurationTime(await DB.batch([...statements, ...totals, recordSiteChange(DB, domain, change.id)]));
      if (committed && stamped !== undefined) committed = { ...committed, configurationModified: stamped };
    } catch (error) {
      // A batch that failed may have committed all the same; then the site is as the database holds it.
      if (!(await this.#followUps.committed(change))) {
        this.#drop();
        throw error;
      }
      if (committed) committed = (await getSite(DB, domain)) ?? committed;
    }
    this.#settle(change);
    if (committed !== undefined) await this.live.replace(domain, committed);
    await this.catchUp();
    return committed;
  }

  #settle(change: PendingChange): void {
    this.storage.transactionSync(() => {
      this.#followUps.settle(change);
      this.blobs.settle();
      this.deployments.settle();
      this.objects.settle();
      if (change.unpublish) this.uploads.abortAllNow();
    });
  }

  /** Whether a change this object began is not settled yet: its reads then recover first. */
  unsettled(): boolean {
    return this.#followUps.pending() !== undefined;
  }

  /**
   * Settles a change the object began but did not see through (it stopped between its commit and
   * its follow-ups, say), and catches up: an alarm that gave up (D1 down for all its retries) is
   * set no more, so what is due runs now, and an alarm is set again for the rest.
   */
  async recover(): Promise<void> {
    const change = this.#followUps.pending();
    let settled = false;
    if (change && (await this.#followUps.committed(change))) {
      this.#settle(change);
      settled = true;
      // Locations may still hold the record from before the change, and an object that kept running holds it too.
      await this.live.replace(change.domain, await getSite(this.envOf().DB, change.domain));
    }
    // What was held for a change that did not commit.
    this.#drop();
    await this.live.resumePurge();
    if (settled) return this.catchUp();
    if ((await this.storage.getAlarm()) !== null) return;
    const due = this.#followUps.nextDue();
    if (due !== undefined && due <= Date.now()) await this.catchUp();
    else await this.scheduleAlarm();
  }

  #drop(): void {
    this.blobs.drop();
    this.deployments.drop();
    this.objects.drop();
  }

  /** Objects follow-ups delete later, after the grace for reads in flight. */
  scheduledDeletions(): string[] {
    return this.#followUps.scheduledDeletions();
  }

  /** Makes the follow-ups of `domain` kept as dead letters due again (an operator replays them), and runs them; answers how many. */
  async replayDeadLetters(domain: string): Promise<number> {
    const { DB } = this.envOf();
    const { followUps, forget } = await keptFollowUps(DB, domain);
    if (followUps.length === 0) return 0;
    this.#followUps.replay(followUps);
    await forget.run();
    await this.catchUp();
    return followUps.length;
  }

  /** Runs what is due, then sets the alarm for what remains. */
  async catchUp(): Promise<void> {
    await this.#followUps.runDue();
    await this.uploads.abortDue(async (key) => this.live.site?.deployment?.packs.includes(key) ?? false);
    await this.scheduleAlarm();
  }

  /** Sets the alarm for the earliest work left (work already due has just failed: retried later), or clears it. */
  scheduleAlarm(): Promise<void> {
    const times = [this.#followUps.nextDue(), this.uploads.nextDue(), this.deadlines.nextDue(), this.live.nextDue()].filter((time) => time !== undefined);
    if (times.length === 0) return this.storage.deleteAlarm();
    const now = Date.now();
    const next = Math.min(...times);
    return this.storage.setAlarm(next > now ? next : now + retryMs);
  }
}
