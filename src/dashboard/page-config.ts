import type { Env } from '../platform/env';
import { settingsOf } from '../platform/settings';
import type { PageConfig } from './contract';

/** `GET /dashboard/config.json`: see contract.ts. */
export function pageConfig(env: Env): PageConfig {
  const clientId = env.AUTH_CLIENT_ID;
  return {
    apiHostnames: settingsOf(env).apiHostnames,
    openId:
      env.AUTH_ISSUER && clientId
        ? { issuer: env.AUTH_ISSUER, clientId, audience: env.AUTH_AUDIENCE, scope: 'openid deploy global_read' }
        : null,
  };
}
