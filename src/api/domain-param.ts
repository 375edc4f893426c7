import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { apiHostnames, parseDomain } from '../domain-name';

/** The `<domain>` path parameter, normalised and validated (400 `invalid-domain`). */
export function domainParam(c: Context<AppEnv>): string {
  return parseDomain(c.req.param('domain') ?? '', apiHostnames(c.env.API_HOSTNAMES));
}
