/**
 * Which deployments a site keeps, and what collecting the others frees. Kept: the live one, the
 * newest `DEPLOYMENTS_KEPT` ready ones, any ready one younger than `DEPLOYMENTS_KEPT_DAYS`, and an
 * incremental deploy still uploading until its deadline, a day after it began, unless another
 * user holds the site. Bytes are shared by
 * reference (packs, and an index a configuration change reuses), so an object is freed only when
 * no kept deployment names it. Every commit collects; so does the coordinator's alarm at an
 * uploading deployment's deadline (./incremental-deadlines.ts), for a site that commits no more.
 */
import type { DeploymentRecord } from '../../storage/deployments-table';

export interface KeptWindow {
  kept: number;
  keptDays: number;
}

/** An incremental deploy not finalized within this long is taken for abandoned. */
export const abandonedIncrementalMs = 86_400_000;

/** When an incremental deploy begun at `created` is taken for abandoned, and collected. */
export function deadlineOf(created: number): number {
  return created + abandonedIncrementalMs;
}

export interface Collection {
  /** Ids of the deployments collected. */
  deployments: string[];
  /** Packs no kept deployment holds: their hashes are forgotten with them. */
  packs: string[];
  /** Every R2 object freed: those packs, indexes and manifests. */
  objects: string[];
}

/** The R2 objects a deployment holds: its packs, its index and, while it uploads, its manifest. */
export function objectsOf(deployment: DeploymentRecord): string[] {
  return [...deployment.packs, ...(deployment.indexKey ? [deployment.indexKey] : []), ...(deployment.manifestKey ? [deployment.manifestKey] : [])];
}

/**
 * What to collect of `deployments` (newest first), `liveId` being live at `now`, when `claimant`
 * claims the domain with this change (null: no claim). An upload another user began is stranded
 * by a claim (its finalize is refused): collected at once, so its bytes stop counting against
 * them. Without a claim, uploads wait for their deadline: the owner's members upload too.
 */
export function collection(deployments: readonly DeploymentRecord[], liveId: string | null, window: KeptWindow, now: number, claimant: string | null): Collection {
  const youngerThan = now - window.keptDays * 86_400_000;
  let ready = 0;
  const kept: DeploymentRecord[] = [];
  const collected: DeploymentRecord[] = [];
  for (const deployment of deployments) {
    const keep =
      deployment.state === 'uploading'
        ? deadlineOf(deployment.created) > now && (claimant === null || deployment.createdBy === claimant)
        : deployment.id === liveId || ready < window.kept || deployment.created > youngerThan;
    if (deployment.state === 'ready') ready++;
    (keep ? kept : collected).push(deployment);
  }
  return freedBy(collected, kept);
}

/** What collecting `collected` frees while `kept` stay: the objects none of `kept` names. */
export function freedBy(collected: readonly DeploymentRecord[], kept: readonly DeploymentRecord[]): Collection {
  const held = new Set(kept.flatMap(objectsOf));
  const objects = [...new Set(collected.flatMap(objectsOf))].filter((key) => !held.has(key));
  const packs = new Set(collected.flatMap((deployment) => deployment.packs));
  return { deployments: collected.map((deployment) => deployment.id), packs: objects.filter((key) => packs.has(key)), objects };
}
