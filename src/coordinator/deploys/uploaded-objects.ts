/**
 * What the coordinator decides of the objects the Worker uploaded for a change: which packs a
 * deploy wrote itself, and the deletion of those no change took, or that an incremental deploy
 * left past its deadline (blob uploads: ./blob-uploads.ts). The coordinator alone deletes what
 * is stored under its site (docs/design.md), always under its lock.
 */
import { Problem } from '../../http/problem';
import { keys } from '../../storage/file-index';
import { deleteObjects } from '../../storage/objects';
import { deploymentNotFound } from '../access/access';
import type { DeployCommit } from '../changes';
import { objectsOf } from '../records/kept-window';
import type { SiteState } from '../commit/site-state';

/** The packs a deploy wrote itself: those its new bytes lie in (the others hold stored bytes it reuses). */
export function ownPacks(files: NonNullable<DeployCommit['files']>): string[] {
  const written = new Set(files.blobs.map((blob) => blob.pack));
  return files.packs.filter((key) => written.has(key));
}

/** Deletes of `written` what no deployment of `domain` holds; no unfinished upload of theirs is left to abort. */
export async function discardUnheld(state: SiteState, domain: string, written: readonly string[]): Promise<void> {
  const held = new Set((await state.deployments.all(domain)).flatMap(objectsOf));
  const unheld = written.filter((key) => !held.has(key));
  for (const key of unheld) state.commits.uploads.forget(key);
  await deleteObjects(state.env.FILES, unheld);
}

/**
 * Once an incremental deploy's deadline has passed, collects the kept window as a commit does:
 * on a site that never commits again, nothing else would. A deploy whose row the Worker never
 * wrote (it stopped after recording the deadline) leaves at most its manifest, which nothing names.
 */
export async function collectAbandoned(state: SiteState): Promise<void> {
  const due = state.commits.deadlines.due();
  if (due.length === 0) return;
  const { domain } = due[0]!;
  const site = await state.load(domain);
  const deployments = await state.deployments.all(domain);
  const freed = state.collection(domain, deployments, site?.liveDeploymentId ?? null, null);
  if (freed.statements.length > 0) await state.commits.commit(domain, freed.statements, undefined, { now: freed.now, later: freed.later }, freed.stored);
  const written = new Set(deployments.map((deployment) => deployment.id));
  const unwritten = due.filter((deadline) => !written.has(deadline.deploymentId));
  await deleteObjects(state.env.FILES, unwritten.map((deadline) => keys.manifest(domain, deadline.deploymentId)));
  state.commits.deadlines.forget(due);
}

/** Cancels the incremental deploy `id` that `userId` began and still uploads: collected now, as at its deadline. */
export async function cancelUpload(state: SiteState, domain: string, userId: string, id: string): Promise<void> {
  const deployments = await state.deployments.all(domain);
  const uploading = deployments.find((kept) => kept.id === id && kept.createdBy === userId);
  if (!uploading) throw deploymentNotFound(domain, id);
  if (uploading.state !== 'uploading') throw new Problem('conflict', `The deployment ${id} is not uploading: only an upload under way can be cancelled.`);
  const freed = state.abandon(domain, uploading, deployments);
  await state.commits.commit(domain, freed.statements, undefined, { now: freed.now, later: freed.later }, freed.stored);
}
