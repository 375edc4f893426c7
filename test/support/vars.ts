import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { call } from './client';

/** Replaces some vars of `domain`'s coordinator (Durable Object), which reads its own env. */
export async function coordinatorVars(domain: string, vars: Record<string, string>): Promise<void> {
  await runInDurableObject(env.SITES.get(env.SITES.idFromName(domain)), (instance: SiteCoordinator) => {
    const held = instance as unknown as { env: typeof env };
    held.env = { ...held.env, ...vars };
  });
}

/** What a visitor gets of each of `paths` on `domain`: status, ETag and body, to compare before and after a refusal. */
export async function servedAs(domain: string, paths: readonly string[]): Promise<string[]> {
  return Promise.all(
    paths.map(async (path) => {
      const response = await call(`http://${domain}${path}`);
      return `${response.status} ${response.headers.get('etag')} ${await response.text()}`;
    }),
  );
}
