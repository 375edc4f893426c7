/**
 * What a coordinator holds of its one site between changes, and the one way a change that stores
 * a deployment commits: the live record, the index written last, the kept window's collection.
 * The coordinator's changes (../coordinator.ts, ../deploys/manifest-commit.ts, ../deploys/file-edits.ts) run on it
 * one at a time, under the coordinator's lock.
 */
import type { Env } from '../../platform/env';
import { Problem } from '../../http/problem';
import type { BlobLocation, DeploymentRecord } from '../../storage/deployments-table';
import { deleteDeploymentHosts, putDeploymentHost } from '../../storage/deployment-hosts';
import { type FileIndex, readFileIndex, writeFileIndex } from '../../storage/file-index';
import { type SiteRecord, emptySite, getSite, tickConfigurationsClock, upsertSite } from '../../storage/sites-table';
import { type StoredObject, release } from '../../storage/usage-ledger';
import { releaseQuota, reserveQuota } from '../../quotas/reservation';
import { deleteObjects } from '../../storage/objects';
import { log } from '../../platform/log';
import { checkClaimant } from '../access/claimant';
import { memberAccess } from '../../storage/members-table';
import { type MemberRole, type Requester, authorize, refuseSuspendedUser } from '../access/access';
import { Commits, type StorageChange } from './commits';
import type { DeploymentStore } from '../records/deployment-store';
import { keptWindowOf, newestFirst, sameConfiguration } from '../records/deployment-records';
import type { FollowUp, PendingChange } from '../sweeps/follow-ups';
import { LiveRecord } from '../edge/freshness';
import { type Collection, collection, freedBy, objectsOf } from '../records/kept-window';

/** A collection as a commit takes it: statements for its batch, the packs the blob index, the deployments the store and the objects the ledger forget, follow-ups now and after the grace period, and the objects it frees. */
type Freed = { statements: D1PreparedStatement[]; stored: StorageChange; now: FollowUp[]; later: FollowUp[]; objects: string[] };

/**
 * What a change's commit runs after it, besides its collection's (see PendingChange), the
 * objects it stored for itself alone (`written`, with their sizes): counted against its user's
 * quota once it commits, deleted when it does not; and where its new bytes lie (`blobs`).
 */
export type ChangeFollowUps = Omit<PendingChange, 'id' | 'domain' | 'later' | 'orphans'> & { written?: StoredObject[]; blobs?: readonly BlobLocation[] };

export class SiteState {
  readonly live: LiveRecord;
  readonly commits: Commits;
  /** The index this object wrote last: the live one, or the base a client's next manifest patch most likely names. */
  lastIndex?: { key: string; index: FileIndex };

  /** `envOf` answers the coordinator's env at each use: tests swap it to inject failures. */
  constructor(
    storage: DurableObjectStorage,
    readonly envOf: () => Env,
  ) {
    this.live = new LiveRecord(storage, envOf);
    this.commits = new Commits(storage, envOf, this.live);
  }

  get env(): Env {
    return this.envOf();
  }

  /** The site's kept deployments (../records/deployment-store.ts). */
  get deployments(): DeploymentStore {
    return this.commits.deployments;
  }

  async readIndex(key: string): Promise<FileIndex> {
    return this.lastIndex?.key === key ? this.lastIndex.index : readFileIndex(this.env.FILES, key);
  }

  /** Stores `index` at `key`; answers it as a stored object. */
  async writeIndex(key: string, index: FileIndex): Promise<StoredObject> {
    const bytes = await writeFileIndex(this.env.FILES, key, index);
    this.lastIndex = { key, index };
    return { key, bytes };
  }

  /** The live site's index; an empty one for a site without files. */
  async liveIndex(site: SiteRecord): Promise<FileIndex> {
    if (!site.deployment) return { deploymentId: '', created: 0, packs: [], files: [] };
    return this.readIndex(site.deployment.indexKey);
  }

  async load(domain: string): Promise<SiteRecord | null> {
    if (this.live.site === undefined) this.live.load(await getSite(this.env.DB, domain));
    return this.live.site ?? null;
  }

  /** The site, when `requester` may change it (`own`: do what only its owner may). */
  async changeable(domain: string, requester: Requester, action: 'change' | 'own' = 'change'): Promise<SiteRecord> {
    return (await this.permitted(domain, requester, action))!;
  }

  /**
   * The role `userId` holds on `site` as a member (null: none, or its owner); a suspended member
   * is refused here, whatever their credential, since no site record carries their suspension.
   * Members change only through this object.
   */
  async memberOf(site: SiteRecord | null, userId: string): Promise<MemberRole | null> {
    if (!site || site.userId === userId) return null;
    const { role, suspension } = await memberAccess(this.env.DB, site.domain, userId);
    refuseSuspendedUser(userId, suspension);
    return role;
  }

  /**
   * The site (null: none yet), when `requester` may do `action` on it. A deploy that claims the
   * domain is checked here as it commits (src/domains/claim.ts): the Worker's check before the
   * upload saw D1, and a site unpublished since would otherwise be claimed unchecked.
   */
  async permitted(domain: string, requester: Requester, action: 'deploy' | 'change' | 'own'): Promise<SiteRecord | null> {
    const site = await this.load(domain);
    authorize(requester, domain, site, action, await this.memberOf(site, requester.userId));
    if (site === null && action === 'deploy') await checkClaimant(this.env, domain, requester.userId);
    return site;
  }

  /**
   * Takes into a change what the Worker uploaded: 409 when any of `written` is gone (an unpublish
   * while it uploaded deleted what nothing held under the site, a pack written before the
   * unpublish and its index after it included); else its `packs` are complete, and no unfinished
   * upload of theirs is left to abort.
   */
  async claimUpload(domain: string, written: readonly string[], packs: readonly string[]): Promise<void> {
    const found = await Promise.all(written.map((key) => this.env.FILES.head(key)));
    if (found.some((object) => object === null)) {
      throw new Problem('conflict', `The site ${domain} was unpublished while this deploy uploaded; deploy again.`);
    }
    for (const pack of packs) this.commits.uploads.forget(pack);
  }

  /**
   * Commits a change that stores `record` (new, or activated) and makes `live` the live site
   * (undefined: unchanged). Deployments that fall out of the kept window go in the same batch;
   * the objects no kept deployment holds are deleted after the grace period, for reads in flight.
   * What the change adds for its user (a new site, the objects it wrote) is reserved under the
   * quotas first: over one, nothing is committed and those objects are deleted.
   */
  async commitDeployment(
    record: DeploymentRecord,
    statements: D1PreparedStatement[],
    live: SiteRecord | undefined,
    followUps: ChangeFollowUps,
    /** The site's deployments, when this change read them already under the lock. */
    deployments?: DeploymentRecord[],
  ): Promise<SiteRecord | null | undefined> {
    const { DB } = this.env;
    const { domain } = record;
    const { written = [], blobs = [], ...rest } = followUps;
    const wasLive = this.live.site?.liveDeploymentId ?? null;
    const liveId = live ? live.liveDeploymentId : wasLive;
    const kept = deployments ?? (await this.deployments.all(domain));
    const others = kept.filter((other) => other.id !== record.id);
    // A deployment made, or an upload finalized, enters the preview hosts' directory; one activated is in it.
    const entered = kept.some((other) => other.id === record.id && other.state === 'ready') ? [] : [putDeploymentHost(DB, record)];
    await this.commits.moved(domain);
    // Bytes count against the site's owner, whoever of its members made the deployment; a new site's is its creator.
    const owner = this.live.site?.userId ?? record.createdBy;
    // A change that creates the site claims the domain: what others left uploading there is stranded.
    const claiming = !this.live.site;
    const freed = this.collection(domain, [record, ...others].sort(newestFirst), liveId, claiming ? owner : null);
    // What the claim keeps of a stranded upload (blobs its deployment reuses) is counted against the claimant from now on.
    const collected = new Set(freed.stored.forgetDeployments);
    const reassign = claiming ? { userId: owner, keys: [record, ...others].filter((kept) => !collected.has(kept.id)).flatMap(objectsOf) } : undefined;
    const claim = {
      userId: owner,
      sites: live && claiming ? 1 : 0,
      bytes: written.reduce((sum, object) => sum + object.bytes, 0) + (reassign ? this.commits.objects.bytesOfOthers(reassign.keys, owner) : 0),
      freeing: this.commits.objects.bytes(freed.objects, owner),
    };
    const reservation = await reserveQuota(this.env, claim).catch(async (error: unknown) => {
      await this.#discard(written);
      throw error;
    });
    // The deployment this change takes off the air: a rollback without an id looks for it.
    const now = Date.now();
    const ended = wasLive !== null && wasLive !== liveId ? { id: wasLive, at: now } : undefined;
    // The one it puts on the air (a deploy, or an activation of a kept one): its traffic by deployment starts here.
    const stored = liveId === record.id && wasLive !== liveId ? { ...record, liveFrom: now } : record;
    const released = reservation ? [release(DB, reservation, owner)] : [];
    try {
      return await this.commits.commit(
        domain,
        [...entered, ...statements, ...freed.statements, ...released],
        live,
        { ...rest, orphans: written.map((object) => object.key), now: [...rest.now, ...freed.now], later: freed.later },
        { ...freed.stored, record: blobs, store: { userId: owner, objects: written }, reassign, deployment: stored, ended },
      );
    } catch (error) {
      await releaseQuota(this.env, reservation, owner);
      throw error;
    }
  }

  /** Deletes objects a change wrote for itself and did not commit; failing, they go with the site at worst. */
  async #discard(written: readonly StoredObject[]): Promise<void> {
    const keys = written.map((object) => object.key);
    await deleteObjects(this.env.FILES, keys).catch((error: unknown) => log.error('A refused change left objects behind', { keys, error }));
  }

  /**
   * What falls out of the kept window of `deployments` (newest first) now, `liveId` being live on
   * `owner`'s site (uploads other users left stranded on it included):
   * statements deleting its directory rows, for a commit's batch, and the deployments, hashes and
   * objects it forgets; the purge of the records
   * locations hold for its preview hosts, so they stop at once; and the deletion of the objects
   * no kept deployment holds, due after the grace period for reads in flight.
   */
  collection(domain: string, deployments: DeploymentRecord[], liveId: string | null, claimant: string | null): Freed {
    return this.#freed(domain, collection(deployments, liveId, keptWindowOf(this.env), Date.now(), claimant));
  }

  /** Collects the incremental deploy `uploading` now, as its deadline would: what none of the site's other `deployments` holds is freed. */
  abandon(domain: string, uploading: DeploymentRecord, deployments: readonly DeploymentRecord[]): Freed {
    return this.#freed(domain, freedBy([uploading], deployments.filter((kept) => kept.id !== uploading.id)));
  }

  #freed(domain: string, freed: Collection): Freed {
    if (freed.deployments.length === 0) return { statements: [], stored: {}, now: [], later: [], objects: [] };
    return {
      objects: freed.objects,
      statements: [deleteDeploymentHosts(this.env.DB, freed.deployments)],
      stored: { forgetPacks: freed.packs, forgetDeployments: freed.deployments, forgetObjects: freed.objects },
      now: [{ kind: 'purge-previews', deploymentIds: freed.deployments }],
      later: freed.objects.length > 0 ? [{ kind: 'delete-objects', objects: freed.objects }] : [],
    };
  }
}

/** What records that `next` changed the site's configuration, when it did: a new site adds one ({} when none was sent). */
export function configurationChange(db: D1Database, previous: SiteRecord | null, next: SiteRecord): D1PreparedStatement[] {
  return previous && sameConfiguration(previous.configuration, next.configuration) ? [] : tickConfigurationsClock(db, next.configurationModified, next.domain);
}

/**
 * What a preview commits besides its deployment: on a domain no site holds, the site it claims for
 * `userId` with nothing live (served as no site until a deployment goes live), and the domain's
 * certificate job, as a first deploy starts it.
 */
export function previewClaim(db: D1Database, site: SiteRecord | null, userId: string, domain: string, now: number): { statements: D1PreparedStatement[]; live?: SiteRecord; now: FollowUp[] } {
  if (site) return { statements: [], now: [] };
  const claimed = emptySite(domain, userId, now);
  return { statements: [upsertSite(db, claimed), ...configurationChange(db, null, claimed)], live: claimed, now: [{ kind: 'issue-certificate', domain }] };
}
