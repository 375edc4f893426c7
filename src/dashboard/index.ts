import { type Context, Hono } from 'hono';
import { builtFiles } from '../../dashboard/dist/files';
import type { AppEnv } from '../platform/app-env';
import { ifNoneMatchMatches } from '../http/conditional';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { pageConfig } from './page-config';
import { providerOrigins } from './provider-origins';
import { withSecurityHeaders } from './security-headers';

/**
 * The dashboard on the API host: `/` is its page, `/dashboard/*` its script, styles and
 * config. The built files are part of the Worker's bundle (dashboard/build.mjs), so serving
 * them reads nothing, and requests for hosted sites pass through no asset router.
 */
export const dashboard = new Hono<AppEnv>();

async function builtFile(c: Context<AppEnv>): Promise<Response> {
  const path = c.req.path;
  const file = builtFiles[path];
  if (!file) throw new Problem('not-found', `There is nothing at ${path}.`);
  const ifNoneMatch = c.req.header('if-none-match');
  const notModified = ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, file.etag);
  const response = notModified
    ? new Response(null, { status: 304, headers: { etag: file.etag } })
    : new Response(file.body, { headers: { 'content-type': file.contentType, etag: file.etag } });
  const { openId } = pageConfig(c.env);
  return withSecurityHeaders(response, openId ? await providerOrigins(openId.issuer) : []);
}

resource(dashboard, '/', { GET: [builtFile] });
resource(dashboard, '/dashboard/config.json', {
  GET: [(c) => c.json(pageConfig(c.env), 200, { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })],
});
resource(dashboard, '/dashboard/*', { GET: [builtFile] });
