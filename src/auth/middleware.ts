import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../platform/app-env';
import { Problem } from '../http/problem';
import { parseDomain } from '../platform/domain-name';
import { settingsOf } from '../platform/settings';
import { type Scope, refuseSignedOut, siteReadScopes, verifyApiToken } from './api-tokens';
import type { CheckContext } from './location-checks';
import { looksLikeApiToken } from './token-format';
import { InvalidToken, type Principal, verifyToken } from './tokens';

export type { Scope } from './api-tokens';

const realm = 'realm="sitehost"';

/**
 * The caller, from the request's bearer token, verified once per request (the rate limit and
 * the route's scope check both ask): throws the 401 problem of RFC 6750 (`invalid_token`) for
 * a missing, malformed or refused token. The first to ask (the rate limit) may give what to do
 * before an API token's check reads D1 (`beforeLookup`, see CheckContext).
 */
export function authenticate(c: Context<AppEnv>, beforeLookup?: CheckContext['beforeLookup']): Promise<Principal> {
  let principal = c.get('authentication');
  if (!principal) {
    const context: CheckContext = { env: c.env, waitUntil: (promise) => c.executionCtx.waitUntil(promise), now: Date.now(), beforeLookup };
    principal = principalOf(c.req.header('authorization') ?? '', context);
    // A refusal is thrown to each caller that awaits it; meanwhile it is not an unhandled rejection.
    principal.catch(() => {});
    c.set('authentication', principal);
  }
  return principal;
}

/** The 401 of RFC 6750 for a refused bearer token: `message` says why. */
export function invalidToken(message: string): Problem {
  return new Problem('unauthorized', message, {
    headers: { 'www-authenticate': `Bearer ${realm}, error="invalid_token", error_description="${message.replaceAll('"', "'")}"` },
  });
}

/** An API token of ours (by its prefix), or a JWT that its user has not signed out of since. */
async function principalOf(header: string, context: CheckContext): Promise<Principal> {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  if (!match?.[1]) {
    const detail = header ? 'The Authorization header is not a Bearer token.' : 'Send a Bearer token in the Authorization header.';
    throw new Problem('unauthorized', detail, {
      headers: { 'www-authenticate': `Bearer ${realm}, error="invalid_token"` },
    });
  }
  const bearer = match[1];
  try {
    if (looksLikeApiToken(bearer)) return await verifyApiToken(bearer, context);
    // A JWT reaches D1 only once its signature is verified: no forgery costs a read, nothing to count first.
    return await refuseSignedOut(await verifyToken(bearer, context.env), { ...context, beforeLookup: undefined });
  } catch (error) {
    if (!(error instanceof InvalidToken)) throw error;
    throw invalidToken(error.message);
  }
}

/** 403: a site-restricted token outside its sites. */
function outsideSites(sites: ReadonlySet<string>, what: string): Problem {
  return new Problem('forbidden', `This token is limited to the sites ${[...sites].sort().join(', ')}: it cannot reach ${what}.`);
}

/**
 * Where a site-restricted token may go (Principal.sites): on a route with a `:domain`, only one
 * of its sites; on any other route, only where the route says it answers for the token's sites
 * itself (`acrossSites`), never elsewhere (tokens, usage, every site's configurations).
 */
function refuseOutsideSites(c: Context<AppEnv>, principal: Principal, acrossSites: boolean): void {
  const { sites } = principal;
  if (sites === null) return;
  const raw = c.req.param('domain');
  if (raw === undefined) {
    if (!acrossSites) throw outsideSites(sites, new URL(c.req.url).pathname);
    return;
  }
  let domain: string;
  try {
    domain = parseDomain(raw, settingsOf(c.env).apiHostnames);
  } catch {
    throw outsideSites(sites, raw);
  }
  if (!sites.has(domain)) throw outsideSites(sites, domain);
}

function scopeCheck(scopes: readonly Scope[], acrossSites: boolean) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const principal = await authenticate(c);
    c.set('principal', principal);
    if (scopes.length > 0 && !scopes.some((scope) => principal.scopes.has(scope))) {
      const needed = scopes.join(' ');
      throw new Problem('insufficient-scope', `This needs the scope ${scopes.map((s) => `"${s}"`).join(' or ')}.`, {
        headers: { 'www-authenticate': `Bearer ${realm}, error="insufficient_scope", scope="${needed}"` },
      });
    }
    refuseOutsideSites(c, principal, acrossSites);
    await next();
  });
}

/**
 * Requires a valid bearer token carrying at least one of `scopes`, if any are named (RFC 6750
 * answers: 401 `invalid_token`, 403 `insufficient_scope`), and a site-restricted token to stay
 * within its sites (403). Sets `principal` for the handler.
 */
export function requireScope(...scopes: Scope[]) {
  return scopeCheck(scopes, false);
}

/** `requireScope` for a read of one site: `read`, `deploy` or `global_read`; the access rule says which sites. */
export function requireSiteRead() {
  return scopeCheck(siteReadScopes, false);
}

/** `requireScope` for a route without a `:domain` that limits its own answer to a site-restricted token's sites. */
export function requireScopeAcrossSites(...scopes: Scope[]) {
  return scopeCheck(scopes, true);
}
