/**
 * What a committed change must still do (announce it, queue its certificate, retire replaced
 * files), kept durably in the coordinator's storage so that a stop at any instant ends in the
 * old state, or in the new one with every follow-up done.
 *
 * A change's follow-ups are stored *pending* before its D1 commit; the commit's batch records
 * the change's id in D1; then they are *settled*: made due, run in order, and retried by the
 * alarm until done. A coordinator that stopped in between asks D1 whether the change happened
 * (`committed`) and settles or drops them. A notification is written into the event log by its
 * follow-up (../events/notifications.ts, `publish`), so it is logged before it is forgotten.
 */
import { forgetCertificate } from '../certificates/unpublish';
import type { DeployResult } from '../common/api-types';
import type { Env } from '../platform/env';
import { publish } from '../events/notifications';
import { log } from '../platform/log';
import { settingsOf } from '../platform/settings';
import { deleteObjects, deleteSiteObjects } from '../storage/objects';
import { edgeKeys, purgeEverywhere } from './edge-cache';
import { lastSiteChange } from '../storage/sites-table';
import type { GithubTrust } from '../storage/trust-table';
import type { MemberRole } from './access';

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
  | { type: 'trust-change'; domain: string; provider: 'github'; policy: GithubTrust | null };

/**
 * One piece of work. A notification carries the id of its change, so that one published again is
 * still logged once (one stored before changes named their notifications goes by its own key).
 */
export type FollowUp =
  | { kind: 'notify'; event: SiteEvent; changeId?: string }
  | { kind: 'issue-certificate'; domain: string }
  | { kind: 'forget-certificate'; domain: string }
  | { kind: 'delete-objects'; objects: string[] }
  | { kind: 'delete-site-objects'; domain: string }
  /** Deployments gone (collected, or their site unpublished), whose records locations hold for their preview hosts. */
  | { kind: 'purge-previews'; deploymentIds: string[] };

/** A change's follow-ups, pending on its commit. */
export interface PendingChange {
  id: string;
  domain: string;
  now: FollowUp[];
  /** Due after the grace period: deletions of collected deployments' objects, which reads in flight may still need. */
  later?: FollowUp[];
  /** An unpublish: every object goes, so queued deletions of single objects are moot. */
  unpublish?: boolean;
  /** Objects written for this change alone: deleted when it did not commit. */
  orphans?: string[];
}

const followUpPrefix = 'follow-up/';
const pendingChangeKey = 'pending-change';

/** When a follow-up is due: its key starts with that time. */
function dueOf(followUpKey: string): number {
  return Number(followUpKey.slice(followUpPrefix.length).split('/')[0]);
}

export class FollowUps {
  /** Orders follow-ups due at the same time. */
  #seq = Date.now() * 1000;

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
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
    for (const work of change.now) kv.put(this.#key(time), work);
    const due = time + settingsOf(this.env).retiredDeploymentGraceSeconds * 1000;
    for (const work of change.later ?? []) kv.put(this.#key(due), work);
    kv.delete(pendingChangeKey);
  }

  #key(due: number): string {
    return `${followUpPrefix}${String(due).padStart(15, '0')}/${String(this.#seq++).padStart(20, '0')}`;
  }

  /** Runs due follow-ups in order, stopping at the first failure; the alarm takes over from there. */
  async runDue(): Promise<void> {
    for (const [key, work] of [...this.storage.kv.list<FollowUp>({ prefix: followUpPrefix })]) {
      if (dueOf(key) > Date.now()) return;
      try {
        await this.#perform(work, key);
      } catch (error) {
        log.error('A follow-up failed; the alarm retries it', { kind: work.kind, error });
        return;
      }
      this.storage.kv.delete(key);
    }
  }

  /** Does `work`, stored under `key`. A notification is in the event log once this resolves: it is deleted only then. */
  async #perform(work: FollowUp, key: string): Promise<unknown> {
    switch (work.kind) {
      case 'notify':
        return publish(this.env, { key: work.changeId ?? key, event: work.event });
      case 'issue-certificate':
        return this.env.CERTIFICATES.send({ domain: work.domain }, { contentType: 'json' });
      case 'forget-certificate':
        return forgetCertificate(this.env, work.domain);
      case 'delete-objects':
        return deleteObjects(this.env.FILES, work.objects);
      case 'delete-site-objects':
        return deleteSiteObjects(this.env.FILES, work.domain);
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

  /** When the next work is due: now for a pending change, else the first follow-up's time. */
  nextDue(): number | undefined {
    if (this.pending()) return Date.now();
    for (const [key] of this.storage.kv.list({ prefix: followUpPrefix, limit: 1 })) return dueOf(key);
    return undefined;
  }
}
