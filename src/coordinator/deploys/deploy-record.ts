/**
 * The room deploys/ owns what each change to a site's content builds under the lock: a deploy's
 * deployment (this file), an incremental deploy's manifest (./manifest-commit.ts) and blob
 * uploads, file edits, configuration and metadata edits, uploads cancelled or left unfinished. It
 * may call every room below it; it writes D1 only by handing statements to the commit
 * (../commit/).
 *
 * The deployment a multipart deploy (or a preview) makes, under the coordinator's lock, before it commits.
 */
import { Problem } from '../../http/problem';
import { configuredRoot } from '../../rules/deployment-rules';
import type { DeploymentRecord } from '../../storage/deployments-table';
import type { SiteRecord } from '../../storage/sites-table';
import type { StoredObject } from '../../storage/usage-ledger';
import type { DeployCommit } from '../changes';
import { asDeployer } from '../access/access';
import { newDeploymentId } from '../records/deployment-id';
import { readyDeployment } from '../records/deployment-records';
import { filesForRoot } from './rules-root';
import type { SiteState } from '../commit/site-state';
import { ownPacks } from './uploaded-objects';

/**
 * The deployment `commit` makes (a `preview`: not to go live), its files or configuration
 * defaulting to the live ones; that the user may deploy is checked first. With files, the site's
 * deployments are read: 409 when a pack of stored bytes the deploy reuses is held by none of
 * them any more (collected while it uploaded).
 */
export async function deploymentOf(
  state: SiteState,
  commit: DeployCommit,
  preview = false,
): Promise<{ site: SiteRecord | null; record: DeploymentRecord; deployments?: DeploymentRecord[]; written: StoredObject[] }> {
  const { domain } = commit;
  const site = await state.permitted(domain, asDeployer(commit.userId, commit.claims), 'deploy');
  let deployments: DeploymentRecord[] | undefined;
  if (commit.files) {
    const own = ownPacks(commit.files);
    await state.claimUpload(domain, commit.files.written.map((object) => object.key), own);
    deployments = await state.deployments.all(domain);
    const held = new Set([...own, ...deployments.flatMap((kept) => kept.packs)]);
    if (!commit.files.packs.every((key) => held.has(key))) {
      throw new Problem('conflict', `Stored bytes this deploy reuses on ${domain} were collected while it uploaded; deploy again.`);
    }
  }
  const id = commit.files?.id ?? newDeploymentId();
  const configuration = commit.configuration ?? site?.configuration ?? {};
  // The root the files' rules were read under: the Worker's (its host options', or the live ones' as it read them), or the live ones'.
  const root = configuredRoot(configuration);
  const readUnder = commit.files ? commit.files.rulesRoot : configuredRoot(site?.configuration);
  const { files, written } =
    root === readUnder ? { files: commit.files ?? site?.deployment ?? null, written: undefined } : await filesForRoot(state, domain, id, commit.files ?? site?.deployment ?? null, root, commit.files);
  const record = readyDeployment(domain, id, commit.userId, 'deploy', Date.now(), files, configuration, commit.labels, preview);
  return { site, record, deployments, written: [...(commit.files?.written ?? []), ...(written ? [written] : [])] };
}
