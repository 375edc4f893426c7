import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { type TokenOptions, token } from './client';

/**
 * Requests to the Worker under test with some of its vars (settings) replaced. Only the Worker
 * sees them: a domain's coordinator keeps its own env (see `coordinatorVars`).
 */
export function withVars(vars: Record<string, string>) {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const ctx = createExecutionContext();
    const request = new Request(path.startsWith('http') ? path : `http://localhost${path}`, init);
    const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...vars }, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
  return {
    call,
    async authorized(path: string, init: RequestInit = {}, options: TokenOptions = {}): Promise<Response> {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${await token(options)}`);
      return call(path, { ...init, headers });
    },
  };
}

/** Replaces some vars of `domain`'s coordinator (Durable Object), which reads its own env. */
export async function coordinatorVars(domain: string, vars: Record<string, string>): Promise<void> {
  await runInDurableObject(env.SITES.get(env.SITES.idFromName(domain)), (instance: SiteCoordinator) => {
    const held = instance as unknown as { env: typeof env };
    held.env = { ...held.env, ...vars };
  });
}

/** What a visitor gets of each of `paths` on `domain`: status, ETag and body, to compare before and after a refusal. */
export async function servedAs(domain: string, paths: readonly string[]): Promise<string[]> {
  const { call } = withVars({});
  return Promise.all(
    paths.map(async (path) => {
      const response = await call(`http://${domain}${path}`);
      return `${response.status} ${response.headers.get('etag')} ${await response.text()}`;
    }),
  );
}
