/**
 * Edits of a site's host options and metadata, each a merge patch or a replacement, validated
 * after merging, run by the coordinator under its lock.
 */
import { checkHostConfiguration } from '../../configuration/parse';
import type { DeploymentClient } from '../../common/deployment-labels';
import { unlabelled } from '../../content/label-checks';
import { checkMetadata, type SiteMetadata } from '../../content/metadata';
import { applyMergePatch } from '../../http/merge-patch';
import { configuredRoot } from '../../rules/deployment-rules';
import { type SiteRecord, upsertSite } from '../../storage/sites-table';
import type { Edit } from '../changes';
import { newDeploymentId } from '../records/deployment-id';
import { readyDeployment, sameConfiguration, siteWith } from '../records/deployment-records';
import { filesForRoot } from './rules-root';
import { configurationChange, type SiteState } from '../commit/site-state';

/**
 * Replaces or merge-patches the host options of `site`: a new deployment of the live files with
 * them. An edit that leaves them as they are changes nothing, so a script that sets them on every
 * run neither announces a change nor pushes deployments out of the kept window.
 */
export async function editConfiguration(state: SiteState, site: SiteRecord, userId: string, edit: Edit<unknown>, client: DeploymentClient): Promise<SiteRecord> {
  const { domain } = site;
  const configuration = checkHostConfiguration('replace' in edit ? edit.replace : applyMergePatch(site.configuration, edit.patch));
  if (sameConfiguration(site.configuration, configuration)) return site;
  const now = Date.now();
  const id = newDeploymentId();
  const root = configuredRoot(configuration);
  const { files, written } = root === configuredRoot(site.configuration) ? { files: site.deployment, written: undefined } : await filesForRoot(state, domain, id, site.deployment, root);
  const record = readyDeployment(domain, id, userId, 'configuration', now, files, configuration, unlabelled(client));
  const next = siteWith(site, record, userId, now);
  const { DB } = state.env;
  const committed = await state.commitDeployment(record, [upsertSite(DB, next), ...configurationChange(DB, site, next)], next, {
    now: [{ kind: 'notify', event: { type: 'configuration-update', domain, deploymentId: record.id } }],
    written: written && [written],
  });
  return committed ?? next;
}

/** Replaces or merge-patches the metadata of `site`. */
export async function editMetadata(state: SiteState, site: SiteRecord, edit: Edit<SiteMetadata>): Promise<SiteRecord> {
  const metadata = checkMetadata('replace' in edit ? edit.replace : applyMergePatch(site.metadata, edit.patch));
  const next = { ...site, metadata, modified: Date.now() };
  await state.commits.commit(site.domain, [upsertSite(state.env.DB, next)], next, { now: [] });
  return next;
}
