import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { DeploymentRecord } from '../../src/storage/deployments-table';
import { coordinatorVars } from './vars';

/** The coordinator (Durable Object) of `domain`. */
export function coordinatorOf(domain: string) {
  return env.SITES.get(env.SITES.idFromName(domain));
}

/** Sets the kept window of `domain`'s coordinator (tests default to DEPLOYMENTS_KEPT=1, DEPLOYMENTS_KEPT_DAYS=0). */
export async function keepDeployments(domain: string, kept: number, keptDays = 0): Promise<void> {
  await coordinatorVars(domain, { DEPLOYMENTS_KEPT: String(kept), DEPLOYMENTS_KEPT_DAYS: String(keptDays) });
}

/** Every stored object of `domain`, with its size. */
export async function storedObjects(domain: string): Promise<Map<string, number>> {
  const listing = await env.FILES.list({ prefix: `sites/${domain}/` });
  return new Map(listing.objects.map((object) => [object.key, object.size]));
}

/** SHA-256 of `content`, lowercase hex, as a manifest names it. */
export async function sha256Hex(content: string | Uint8Array): Promise<string> {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Every deployment `domain`'s coordinator keeps (src/coordinator/records/deployment-store.ts), uploading ones too, newest first. */
export async function keptDeployments(domain: string): Promise<DeploymentRecord[]> {
  return runInDurableObject(coordinatorOf(domain), (_, state) =>
    [...state.storage.sql.exec<{ record: string }>('SELECT record FROM deployments ORDER BY created DESC, id DESC')].map((row) => JSON.parse(row.record) as DeploymentRecord),
  );
}

/** The deployment `id` of `domain` as its coordinator keeps it, in any state; null when it keeps none. */
export async function keptDeployment(domain: string, id: string): Promise<DeploymentRecord | null> {
  return (await keptDeployments(domain)).find((deployment) => deployment.id === id) ?? null;
}

/** Makes the deployment `id` of `domain` as if it began `ms` earlier. */
export async function backdate(domain: string, id: string, ms: number): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (_, state) => {
    state.storage.sql.exec(`UPDATE deployments SET created = created - ?1, record = json_set(record, '$.created', created - ?1) WHERE id = ?2`, ms, id);
  });
}
