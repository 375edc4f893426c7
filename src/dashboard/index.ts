import { type Context, Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { pageConfig } from './page-config';
import { providerOrigins } from './provider-origins';
import { withSecurityHeaders } from './security-headers';

/**
 * The dashboard on the API host: `/` is its page, `/dashboard/*` its script, styles and
 * config. The built files live in Workers Static Assets (`[assets]`, `run_worker_first`), so
 * every request still reaches the Worker first and only these paths ever read the assets:
 * hosted sites and `/v2/*` never do.
 */
export const dashboard = new Hono<AppEnv>();

async function fromAssets(c: Context<AppEnv>): Promise<Response> {
  const assets = c.env.ASSETS;
  const response = assets ? await assets.fetch(c.req.raw) : undefined;
  if (!response || response.status === 404) {
    const path = new URL(c.req.url).pathname;
    const hint = path === '/' ? ' The dashboard is not built: `node dashboard/build.mjs` builds it (wrangler dev and deploy run it).' : '';
    throw new Problem('not-found', `There is nothing at ${path}.${hint}`);
  }
  const { openId } = pageConfig(c.env);
  return withSecurityHeaders(response, openId ? await providerOrigins(openId.issuer) : []);
}

resource(dashboard, '/', { GET: [fromAssets] });
resource(dashboard, '/dashboard/config.json', {
  GET: [(c) => c.json(pageConfig(c.env), 200, { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })],
});
resource(dashboard, '/dashboard/*', { GET: [fromAssets] });
