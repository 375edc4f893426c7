import { env } from 'cloudflare:workers';
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
