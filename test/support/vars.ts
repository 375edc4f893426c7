import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { type TokenOptions, token } from './client';

/**
 * Requests to the Worker under test with some of its vars (settings) replaced. Only the Worker
 * sees them: a domain's coordinator keeps its own env (see `coordinatorVars`).
 */
export function withVars(vars: Record<string, string>) {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const ctx = createExecutionContext();
    const request = new Request(`http://localhost${path}`, init);
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
