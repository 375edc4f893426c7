/**
 * An operator's reconciliation of a site's coordinator with D1, after D1 was restored to an
 * earlier minute or the coordinator's storage was lost (docs/operating.md, "Backups and restore").
 * The coordinator's records are then not what D1 names: its live record is read from D1 again and
 * purged everywhere (locations may hold one from after the restore point), the live deployment D1
 * names is kept among its deployments when they lack it (so it is listed, rolled back to and, once
 * out of the kept window, collected like any other), its object ledger is brought in line with
 * what the site holds and the bucket has (../records/object-ledger.ts), and D1's byte totals for
 * the site are set to the ledger's sums, in one batch. Running it again changes nothing more.
 */
import { unlabelled } from '../../content/label-checks';
import { hostedDeployments } from '../../storage/deployment-hosts';
import { type SiteRecord, getSite } from '../../storage/sites-table';
import { replaceStoredBytes } from '../../storage/usage-ledger';
import { readyDeployment } from '../records/deployment-records';
import { namedInD1 } from '../sweeps/named-in-d1';
import type { SiteState } from './site-state';

/** What a reconciliation leaves: each user's bytes on the site, as D1 now counts them. */
export interface ReconciledSite {
  domain: string;
  bytes: Record<string, number>;
}

/** Reconciles `domain`'s coordinator with D1; call it under the coordinator's lock, with no change left unsettled. */
export async function reconcile(state: SiteState, domain: string): Promise<ReconciledSite> {
  const { DB, FILES } = state.env;
  await state.commits.moved(domain);
  const site = await getSite(DB, domain);
  await state.live.replace(domain, site);
  if (site) adoptLive(state, site);
  const deployments = await state.deployments.all(domain);
  const hosted = (await hostedDeployments(DB, [domain])).get(domain) ?? [];
  // What the site holds and counts: packs and indexes (an upload's manifest is not counted), kept or named by D1.
  const held = [
    ...deployments.flatMap((deployment) => [...deployment.packs, ...(deployment.indexKey ? [deployment.indexKey] : [])]),
    ...(await namedInD1(state.env, domain, hosted, new Set(deployments.map((deployment) => deployment.id)))),
  ];
  const totals = await state.commits.objects.reconcile(held, site?.userId ?? null, FILES);
  await DB.batch(replaceStoredBytes(DB, domain, totals));
  return { domain, bytes: Object.fromEntries(totals) };
}

/** Keeps the deployment live in D1's row among the coordinator's deployments, as its row records it, when they lack it. */
function adoptLive(state: SiteState, site: SiteRecord): void {
  const id = site.liveDeploymentId;
  if (id === null) return;
  const created = site.deployment?.created ?? site.modified;
  // The row records no message, alias or client: the client is null, as for a deployment made before clients were recorded.
  const record = readyDeployment(site.domain, id, site.userId, 'deploy', created, site.deployment, site.configuration, unlabelled('api'));
  state.deployments.adopt({ ...record, client: null });
}
