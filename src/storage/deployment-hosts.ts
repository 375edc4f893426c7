/**
 * D1's directory of the hosts that name a deployment without its domain
 * (schema/migrations/0016_deployment_hosts.sql, indexed by domain in 0021): a preview host names a
 * deployment by its id, an alias host by its alias label. The deployments themselves are their
 * coordinators' (src/coordinator/records/deployment-store.ts); a row here says only which
 * coordinator to ask.
 */
import type { DeploymentRecord } from './deployments-table';

/** Statement that enters the ready `deployment` in the directory. */
export function putDeploymentHost(db: D1Database, deployment: DeploymentRecord): D1PreparedStatement {
  return db.prepare('INSERT OR REPLACE INTO deployment_hosts (id, domain, alias_label) VALUES (?, ?, ?)').bind(deployment.id, deployment.domain, deployment.aliasLabel);
}

/** Statement that removes the deployments `ids` (collected, or their site unpublished) from the directory. */
export function deleteDeploymentHosts(db: D1Database, ids: readonly string[]): D1PreparedStatement {
  return db.prepare('DELETE FROM deployment_hosts WHERE id IN (SELECT value FROM json_each(?))').bind(JSON.stringify(ids));
}

/** The domain of the deployment `id`, as a preview host names it; null when none is kept. */
export function domainOfDeployment(db: D1Database, id: string): Promise<string | null> {
  return db.prepare('SELECT domain FROM deployment_hosts WHERE id = ?').bind(id).first<string>('domain');
}

/** The domain of the deployments whose alias host's first label is `label`; null when none is kept. The label is unique to a domain (src/content/label-checks.ts). */
export function domainOfAlias(db: D1Database, label: string): Promise<string | null> {
  return db.prepare('SELECT domain FROM deployment_hosts WHERE alias_label = ? LIMIT 1').bind(label).first<string>('domain');
}

/**
 * The deployments the directory names on each of `domains`: what the orphan sweep holds whatever
 * their coordinators record (src/coordinator/sweeps/named-in-d1.ts), once a sweep run, and a
 * reconciliation on its one domain. The index by domain (migration 0021) answers it alone, reading
 * the rows of `domains` only, however many sites the directory holds.
 */
export async function hostedDeployments(db: D1Database, domains: readonly string[]): Promise<Map<string, string[]>> {
  const hosted = new Map<string, string[]>();
  if (domains.length === 0) return hosted;
  const { results } = await db
    .prepare('SELECT id, domain FROM deployment_hosts WHERE domain IN (SELECT value FROM json_each(?))')
    .bind(JSON.stringify(domains))
    .all<{ id: string; domain: string }>();
  for (const row of results) hosted.set(row.domain, [...(hosted.get(row.domain) ?? []), row.id]);
  return hosted;
}
