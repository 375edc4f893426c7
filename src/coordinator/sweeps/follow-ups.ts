/**
 * The room sweeps/ owns what runs after a change or on a schedule to clean up: a commit's follow-
 * ups (this file), the deletion of objects nothing holds (./orphans.ts) and the daily orphan sweep
 * over the bucket (./orphan-sweeps.ts). It may call records/, edge/ and access/ below it; it
 * writes D1 only to keep a follow-up that spent its attempts as a dead letter.
 *
 * What a committed change must still do (announce it, queue its certificate, retire replaced
 * files), kept durably in the coordinator's storage so that a stop at any instant ends in the
 * old state, or in the new one with every follow-up done.
 *
 * A change's follow-ups are stored *pending* before its D1 commit; the commit's batch records
 * the change's id in D1; then they are *settled*: made due, and run. A coordinator that stopped
 * in between asks D1 whether the change happened (`committed`) and settles or drops them. One
 * that fails is tried again by the alarm after a wait that doubles, `followUpRetry.maxAttempts`
 * times at most; then it is kept as a dead letter for operators (D1's `dead_letters`, queue
 * `site-follow-ups`), who can replay it. Only what depends on order runs in order (`laneOf`): a
 * domain's events, and its certificate's issue and removal; a failing deletion or purge holds
 * back nothing else. A notification is written into the event log by its
 * follow-up (../../events/notifications.ts, `publish`), so it is logged before it is forgotten.
 */
import { customHostnameOf, forgetCertificate } from '../../certificates/unpublish';
import type { DeployResult } from '../../common/api-types';
import type { PreviewMode, SiteMode } from '../../protection/site-protection';
import type { Env } from '../../platform/env';
import { publish } from '../../events/notifications';
import { log } from '../../platform/log';
import { settingsOf } from '../../platform/settings';
import { deleteObjects } from '../../storage/objects';
import { type KeptFollowUp, keepFollowUp } from '../../storage/dead-letters';
import { edgeKeys, purgeEverywhere } from '../edge/edge-cache';
import { getSite, lastSiteChange } from '../../storage/sites-table';
import type { GithubTrust } from '../../storage/trust-table';
import type { MemberRole } from '../access/access';
import { claimOf, replayable } from './claims';
import type { SiteKey } from '../../traffic/batch';
import { siteTraffic } from '../../traffic/site-traffic';

/** The events a change announces: in the event log, and on the notifications queue. */
export type SiteEvent =
  | DeployResult
  | { type: 'site-delete'; domain: string }
  | { type: 'configuration-update'; domain: string; deploymentId: string }
  | { type: 'files-update'; domain: string; path: string; change: 'added' | 'replaced' | 'deleted'; deploymentId: string }
  | { type: 'site-suspend'; domain: string; reason: string }
  | { type: 'site-resume'; domain: string }
  | { type: 'member-add'; domain: string; userId: string; role: MemberRole }
  | { type: 'member-remove'; domain: string; userId: string }
  /** A policy names no secret: it says which jobs' ID tokens are accepted. Null: removed. */
  | { type: 'trust-change'; domain: string; provider: 'github'; policy: GithubTrust | null }
  /** Names no password; `signedOut`: every share link and sign-in made before opens nothing now. */
  | { type: 'protection-update'; domain: string; previews: PreviewMode; site: SiteMode; signedOut: boolean };

/**
 * One piece of work. A notification carries the id of its change, so that one published again is
 * still logged once (one stored before changes named their notifications goes by its own key).
 */
export type FollowUp =
  | { kind: 'notify'; event: SiteEvent; changeId?: string }
  | { kind: 'issue-certificate'; domain: string }
  /** `customHostname`: read before the first attempt deleted the row that named it, so that a retry removes it all the same. */
  | { kind: 'forget-certificate'; domain: string; customHostname?: string | null }
  /** An unpublished site's traffic (src/traffic/site-traffic.ts): that claim's, so a domain claimed again meanwhile keeps its own. */
  | { kind: 'forget-traffic'; traffic: SiteKey }
  | { kind: 'delete-objects'; objects: string[] }
  /**
   * An unpublished site's objects: those under its prefix uploaded `before` the unpublish that
   * nothing holds when it runs, so that a site claimed again meanwhile keeps its own. (One stored
   * before `before` was recorded goes by its due time, the unpublish's.)
   */
  | { kind: 'delete-site-objects'; domain: string; before?: number }
  /** Deployments gone (collected, or their site unpublished), whose records locations hold for their preview hosts. */
  | { kind: 'purge-previews'; deploymentIds: string[] };

/** A change's follow-ups, pending on its commit. */
export interface PendingChange {
  id: string;
  domain: string;
  /** The claim of the domain the change was made for (./claims.ts): a replayed follow-up checks it. */
  claim?: string | null;
  now: FollowUp[];
  /** Due after the grace period: deletions of collected deployments' objects, which reads in flight may still need. */
  later?: FollowUp[];
  /** An unpublish: every object goes, so queued deletions of single objects are moot. */
  unpublish?: boolean;
  /** Objects written for this change alone: deleted when it did not commit. */
  orphans?: string[];
}

/**
 * A follow-up as stored: the site it follows and the claim it was made for, its failed attempts and
 * when it may be tried again once one failed, and whether an operator replayed it.
 */
type StoredFollowUp = FollowUp & { site?: string; claim?: string | null; attempts?: number; retryAt?: number; replayed?: boolean };

/** How failed follow-ups are tried again: after 10 s, then twice as long each time up to an hour; kept as a dead letter after the last attempt (about 3.4 hours in all). */
export const followUpRetry = { firstWaitMs: 10_000, longestWaitMs: 3_600_000, maxAttempts: 12 };

function waitAfter(attempts: number): number {
  return Math.min(followUpRetry.firstWaitMs * 2 ** (attempts - 1), followUpRetry.longestWaitMs);
}

/** The follow-ups that must run in the order they were made, each lane after its last one succeeded; the others (deletions, purges) run on their own. */
function laneOf(work: FollowUp): 'events' | 'certificate' | undefined {
  if (work.kind === 'notify') return 'events';
  if (work.kind === 'issue-certificate' || work.kind === 'forget-certificate') return 'certificate';
  return undefined;
}

const followUpPrefix = 'follow-up/';
const pendingChangeKey = 'pending-change';

/** When a follow-up is due: its key starts with that time. */
function dueOf(followUpKey: string): number {
  return Number(followUpKey.slice(followUpPrefix.length).split('/')[0]);
}

/** When a stored follow-up may run: when due, or once its wait after a failure is over. */
function runsAt(key: string, work: StoredFollowUp): number {
  return Math.max(dueOf(key), work.retryAt ?? 0);
}

export class FollowUps {
  /** Orders follow-ups due at the same time. */
  #seq = Date.now() * 1000;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
    /** Deletes what the site does not hold (./orphans.ts): under `domain`'s prefix uploaded before `cutoff`, or of `objects`. */
    private readonly unheld: { before(domain: string, cutoff: number): Promise<unknown>; of(domain: string, objects: readonly string[]): Promise<unknown> },
  ) {}

  private get env(): Env {
    return this.envOf();
  }

  /** Stores `change` pending on its commit. */
  pend(change: PendingChange): void {
    for (const work of change.now) if (work.kind === 'notify') work.changeId = change.id;
    this.storage.kv.put(pendingChangeKey, change);
  }

  /** The change this coordinator began and has not settled, if any. */
  pending(): PendingChange | undefined {
    return this.storage.kv.get<PendingChange>(pendingChangeKey);
  }

  /** Whether `change` committed, asked of D1; one that did not is forgotten and its orphans deleted. */
  async committed(change: PendingChange): Promise<boolean> {
    if ((await lastSiteChange(this.env.DB, change.domain)) === change.id) return true;
    await deleteObjects(this.env.FILES, change.orphans ?? []);
    this.storage.kv.delete(pendingChangeKey);
    return false;
  }

  /** Makes a committed change's follow-ups due. Call it inside a storage transaction. */
  settle(change: PendingChange): void {
    const { kv } = this.storage;
    if (change.unpublish) {
      for (const [key, work] of [...kv.list<FollowUp>({ prefix: followUpPrefix })]) if (work.kind === 'delete-objects') kv.delete(key);
    }
    const time = Date.now();
    const tied = { site: change.domain, claim: change.claim };
    for (const work of change.now) kv.put(this.#key(time), { ...work, ...tied });
    const due = time + settingsOf(this.env).retiredDeploymentGraceSeconds * 1000;
    for (const work of change.later ?? []) kv.put(this.#key(due), { ...work, ...tied });
    kv.delete(pendingChangeKey);
  }

  #key(due: number): string {
    return `${followUpPrefix}${String(due).padStart(15, '0')}/${String(this.#seq++).padStart(20, '0')}`;
  }

  /**
   * Runs the follow-ups that are due, each lane in order: one that fails holds back those after it
   * in its lane until it succeeds or is given up; what is in no lane runs whatever failed.
   */
  async runDue(): Promise<void> {
    const held = new Set<string>();
    for (const [key, work] of this.#stored()) {
      const lane = laneOf(work);
      if (lane && held.has(lane)) continue;
      if (runsAt(key, work) > Date.now() || !(await this.#run(key, work))) {
        if (lane) held.add(lane);
      }
    }
  }

  /** Runs one follow-up; answers whether it is done with (succeeded, or given up as a dead letter). */
  async #run(key: string, work: StoredFollowUp): Promise<boolean> {
    try {
      await this.#perform(work, key);
      this.storage.kv.delete(key);
      return true;
    } catch (error) {
      const attempts = (work.attempts ?? 0) + 1;
      if (attempts >= followUpRetry.maxAttempts) return this.#giveUp(key, { ...work, attempts }, error);
      const waitMs = waitAfter(attempts);
      log.error('A follow-up failed; the alarm retries it', { kind: work.kind, site: work.site, attempts, retryInSeconds: waitMs / 1000, error });
      this.storage.kv.put(key, { ...work, attempts, retryAt: Date.now() + waitMs });
      return false;
    }
  }

  /** Keeps a follow-up that spent its attempts as a dead letter, then forgets it; answers false (still to retry) when D1 could not keep it. */
  async #giveUp(key: string, work: StoredFollowUp, error: unknown): Promise<boolean> {
    const { attempts, retryAt, ...followUp } = work;
    try {
      await keepFollowUp(this.env.DB, key, dueOf(key), followUp);
    } catch (keeping) {
      log.error('Keeping a follow-up that spent its attempts failed; the alarm retries it', { kind: work.kind, site: work.site, error: keeping });
      this.storage.kv.put(key, { ...work, retryAt: Date.now() + followUpRetry.longestWaitMs });
      return false;
    }
    log.error('A follow-up spent its attempts: kept in dead_letters', { kind: work.kind, site: work.site, attempts, error });
    this.storage.kv.delete(key);
    return true;
  }

  /** Makes `followUps` (dead letters an operator replays, kept by `#giveUp` as stored here, less their attempts) due now, to run as their claim allows (`#perform`). */
  replay(followUps: readonly KeptFollowUp[]): void {
    const time = Date.now();
    for (const work of followUps) this.storage.kv.put(this.#key(time), { ...(work as StoredFollowUp), replayed: true });
  }

  #stored(): [string, StoredFollowUp][] {
    return [...this.storage.kv.list<StoredFollowUp>({ prefix: followUpPrefix })];
  }

  /**
   * Does `work`, stored under `key`. A notification is in the event log once this resolves: it is
   * deleted only then. A replayed one is checked against the claim that holds the domain now, and
   * does only what is still its own (./claims.ts).
   */
  async #perform(work: StoredFollowUp, key: string): Promise<unknown> {
    const current = work.replayed ? claimOf(await getSite(this.env.DB, work.site ?? '')) : undefined;
    if (current !== undefined && !replayable(work, work.claim, current)) {
      log.warn('A replayed follow-up was for a claim of its domain that ended: skipped', { kind: work.kind, site: work.site });
      return;
    }
    switch (work.kind) {
      case 'notify':
        return publish(this.env, { key: work.changeId ?? key, event: work.event, claim: work.claim });
      case 'issue-certificate':
        return this.env.CERTIFICATES.send({ domain: work.domain }, { contentType: 'json' });
      case 'forget-certificate': {
        // Another claim's certificate is not this one's to read or delete; a hostname read before is removed all the same.
        // Asked of D1 at every attempt: a retry, replayed or not, may come after the domain was claimed again.
        const claimedAgain = (current === undefined ? claimOf(await getSite(this.env.DB, work.domain)) : current) !== null;
        if (work.customHostname === undefined && !claimedAgain) {
          work.customHostname = await customHostnameOf(this.env, work.domain);
          this.storage.kv.put(key, work);
        }
        return forgetCertificate(this.env, work.domain, work.customHostname ?? null, claimedAgain);
      }
      case 'forget-traffic':
        return siteTraffic(this.env, work.traffic.domain).forget(work.traffic);
      case 'delete-objects':
        // Replayed, it may come after a restore or a new claim: only what the site does not hold now goes.
        return work.replayed ? this.unheld.of(work.site ?? '', work.objects) : deleteObjects(this.env.FILES, work.objects);
      case 'delete-site-objects':
        return this.unheld.before(work.domain, work.before ?? dueOf(key));
      case 'purge-previews': {
        const { edge } = settingsOf(this.env);
        // Handed over, not awaited: the account keeps the purge until Cloudflare accepts it.
        return purgeEverywhere(this.env, work.deploymentIds.map((id) => edgeKeys.deployment(edge, id)), 0);
      }
    }
  }

  /** Objects a follow-up deletes later (a collected deployment's, kept for reads in flight until then): no one else deletes them sooner. */
  scheduledDeletions(): string[] {
    return [...this.storage.kv.list<FollowUp>({ prefix: followUpPrefix })].flatMap(([, work]) => (work.kind === 'delete-objects' ? work.objects : []));
  }

  /** When the next work is due: now for a pending change, else the earliest time a follow-up may run (one held behind another in its lane runs after it). */
  nextDue(): number | undefined {
    if (this.pending()) return Date.now();
    let next: number | undefined;
    const held = new Set<string>();
    for (const [key, work] of this.#stored()) {
      const lane = laneOf(work);
      if (lane && held.has(lane)) continue;
      if (lane) held.add(lane);
      next = Math.min(next ?? Infinity, runsAt(key, work));
    }
    return next;
  }
}
