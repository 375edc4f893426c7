import type { Principal } from '../auth/tokens';
import type { Env } from './env';

/** Hono's typing of this app: the Worker's bindings and what middleware sets. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    principal: Principal;
    /** The bearer token's verification, begun by the first to ask (src/auth/middleware.ts). */
    authentication: Promise<Principal>;
  };
}
