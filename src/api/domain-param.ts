import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { parseDomain } from '../domain-name';
import { settingsOf } from '../settings';

/** The `<domain>` path parameter, normalised and validated (400 `invalid-domain`). */
export function domainParam(c: Context<AppEnv>): string {
  return parseDomain(c.req.param('domain') ?? '', settingsOf(c.env).apiHostnames);
}
