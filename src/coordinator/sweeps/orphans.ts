/**
 * The sweep of one site's objects. A deploy writes its pack and index before it asks the
 * coordinator to commit them, so a runtime that stops in between leaves them under the site's
 * prefix with nothing naming them (a Worker's failed clean-up does too). The sweep deletes every
 * object there that nothing holds — no kept deployment (uploading ones included), no unfinished
 * upload recorded with the coordinator (../records/uploads.ts), no incremental deploy about to store its
 * manifest (../records/incremental-deadlines.ts), no follow-up that deletes it once reads in flight are
 * done (./follow-ups.ts), nothing D1 names (./named-in-d1.ts: after a restore, or a coordinator's
 * lost storage) — once it is older than `ORPHAN_SWEEP_GRACE_SECONDS`:
 * a deploy under way is held by nothing until its commit, and the grace spares it. It runs in the
 * coordinator, under its lock, so no change commits while it reads what is held; the daily cron
 * picks the domains (./orphan-sweeps.ts).
 */
import type { Env } from '../../platform/env';
import { log } from '../../platform/log';
import { settingsOf } from '../../platform/settings';
import { keys } from '../../storage/file-index';
import { deleteObjects, listObjects } from '../../storage/objects';
import type { Commits } from '../commit/commits';
import { objectsOf } from '../records/kept-window';
import { namedInD1 } from './named-in-d1';

/**
 * Sweeps `domain`'s prefix and answers the keys it deleted; call it under the coordinator's lock,
 * with no change left unsettled. `hosted`: the deployments D1's directory of preview hosts names on it.
 */
export async function sweepOrphans(env: Env, domain: string, commits: Commits, hosted: readonly string[]): Promise<string[]> {
  const orphans = await deleteUnheld(env, domain, commits, Date.now() - settingsOf(env).orphanSweepGraceSeconds * 1000, hosted);
  if (orphans.length > 0) log.info('Deleted objects no deployment or upload held (a deploy cut before its commit)', { domain, objects: orphans });
  return orphans;
}

/**
 * Deletes the objects under `domain`'s prefix uploaded before `cutoff` that nothing holds now, and
 * answers their keys: the sweep's rule, and an unpublish's (./follow-ups.ts), whose cutoff is the
 * unpublish itself, so that a site claimed again since keeps every object it wrote or holds.
 */
export async function deleteUnheld(env: Env, domain: string, commits: Commits, cutoff: number, hosted: readonly string[] = []): Promise<string[]> {
  // Listed before what holds them is read: an upload or incremental deploy is recorded before its first object is written.
  const old: string[] = [];
  for await (const page of listObjects(env.FILES, keys.sitePrefix(domain))) {
    for (const object of page) if (object.uploaded.getTime() < cutoff) old.push(object.key);
  }
  if (old.length === 0) return [];
  const held = await heldObjects(env, domain, commits, hosted);
  for (const key of commits.scheduledDeletions()) held.add(key);
  const unheld = old.filter((key) => !held.has(key));
  await deleteObjects(env.FILES, unheld);
  return unheld;
}

/** Deletes those of `objects` that `domain`'s site does not hold now: a replayed deletion, which may run long after its change (a restore, or a new claim, since). */
export async function deleteIfUnheld(env: Env, domain: string, commits: Commits, objects: readonly string[]): Promise<void> {
  const held = await heldObjects(env, domain, commits);
  await deleteObjects(env.FILES, objects.filter((key) => !held.has(key)));
}

/** What `domain`'s site holds now: its kept deployments' objects (uploading ones' too), what D1 names, recorded uploads, and incremental deploys about to store their manifest. */
async function heldObjects(env: Env, domain: string, commits: Commits, hosted: readonly string[] = []): Promise<Set<string>> {
  const deployments = await commits.deployments.all(domain);
  return new Set([
    ...deployments.flatMap(objectsOf),
    ...(await namedInD1(env, domain, hosted, new Set(deployments.map((deployment) => deployment.id)))),
    ...commits.uploads.keys(),
    ...commits.deadlines.deploymentIds().map((id) => keys.manifest(domain, id)),
  ]);
}
