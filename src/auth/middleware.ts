import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../platform/app-env';
import { Problem } from '../http/problem';
import { InvalidToken, verifyToken } from './tokens';

export type Scope = 'deploy' | 'global_read';

const realm = 'realm="sitehost"';

/**
 * Requires a valid bearer token carrying at least one of `scopes`, if any are named (RFC 6750
 * answers: 401 `invalid_token`, 403 `insufficient_scope`). Sets `principal` for the handler.
 */
export function requireScope(...scopes: Scope[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
    if (!match?.[1]) {
      const detail = header ? 'The Authorization header is not a Bearer token.' : 'Send a Bearer token in the Authorization header.';
      throw new Problem('unauthorized', detail, {
        headers: { 'www-authenticate': `Bearer ${realm}, error="invalid_token"` },
      });
    }
    try {
      c.set('principal', await verifyToken(match[1], c.env));
    } catch (error) {
      if (!(error instanceof InvalidToken)) throw error;
      throw new Problem('unauthorized', error.message, {
        headers: {
          'www-authenticate': `Bearer ${realm}, error="invalid_token", error_description="${error.message.replaceAll('"', "'")}"`,
        },
      });
    }
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
