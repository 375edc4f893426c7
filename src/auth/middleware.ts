import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../platform/app-env';
import { Problem } from '../http/problem';
import { InvalidToken, type Principal, verifyToken } from './tokens';

/** `admin`: an operator's, to suspend and unpublish any site (docs/design.md#operators). */
export type Scope = 'deploy' | 'global_read' | 'admin';

const realm = 'realm="sitehost"';

/**
 * The caller, from the request's bearer token, verified once per request (the rate limit and
 * the route's scope check both ask): throws the 401 problem of RFC 6750 (`invalid_token`) for
 * a missing, malformed or refused token.
 */
export function authenticate(c: Context<AppEnv>): Promise<Principal> {
  let principal = c.get('authentication');
  if (!principal) {
    principal = principalOf(c.req.header('authorization') ?? '', c.env);
    // A refusal is thrown to each caller that awaits it; meanwhile it is not an unhandled rejection.
    principal.catch(() => {});
    c.set('authentication', principal);
  }
  return principal;
}

async function principalOf(header: string, env: AppEnv['Bindings']): Promise<Principal> {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  if (!match?.[1]) {
    const detail = header ? 'The Authorization header is not a Bearer token.' : 'Send a Bearer token in the Authorization header.';
    throw new Problem('unauthorized', detail, {
      headers: { 'www-authenticate': `Bearer ${realm}, error="invalid_token"` },
    });
  }
  try {
    return await verifyToken(match[1], env);
  } catch (error) {
    if (!(error instanceof InvalidToken)) throw error;
    throw new Problem('unauthorized', error.message, {
      headers: {
        'www-authenticate': `Bearer ${realm}, error="invalid_token", error_description="${error.message.replaceAll('"', "'")}"`,
      },
    });
  }
}

/**
 * Requires a valid bearer token carrying at least one of `scopes`, if any are named (RFC 6750
 * answers: 401 `invalid_token`, 403 `insufficient_scope`). Sets `principal` for the handler.
 */
export function requireScope(...scopes: Scope[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set('principal', await authenticate(c));
    const { scopes: granted } = c.get('principal');
    if (scopes.length > 0 && !scopes.some((scope) => granted.has(scope))) {
      const needed = scopes.join(' ');
      throw new Problem('insufficient-scope', `This needs the scope ${scopes.map((s) => `"${s}"`).join(' or ')}.`, {
        headers: { 'www-authenticate': `Bearer ${realm}, error="insufficient_scope", scope="${needed}"` },
      });
    }
    await next();
  });
}
