import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { Problem } from './problem';

type Method = 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE';
type Handlers = Partial<Record<Method, [...MiddlewareHandler<AppEnv>[], Handler<AppEnv>]>>;

/**
 * Registers a path's methods and answers any other method with 405 and `Allow`
 * (Hono alone would fall through to 404). HEAD is served by GET, as Hono does.
 */
export function resource(app: Hono<AppEnv>, path: string, handlers: Handlers): void {
  const methods = Object.keys(handlers) as Method[];
  for (const method of methods) app.on(method, path, ...(handlers[method] as [Handler<AppEnv>]));
  const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
  app.all(path, (c) => {
    if (c.req.method === 'OPTIONS') return c.body(null, 204, { allow });
    throw new Problem('method-not-allowed', `${c.req.method} is not allowed here; use ${allow}.`, {
      headers: { allow },
    });
  });
}
