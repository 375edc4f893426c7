/**
 * `/v2/tokens`: a user's API tokens (docs/api.md, "Tokens"). Made, listed and revoked by the
 * user's own credentials; a site-restricted token can do none of it (403, src/auth/middleware.ts).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { forgetRevoked } from '../auth/api-tokens';
import { requireScope } from '../auth/middleware';
import { isTokenId, newToken, newTokenId, sha256Hex } from '../auth/token-format';
import { type ApiTokenRecord, deleteToken, insertToken, listTokensOf, signOutEverywhere } from '../auth/token-store';
import type { ApiToken, CreatedApiToken, SignOut } from '../common/api-types';
import { type UserEvent, publishToUser } from '../events/notifications';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { settingsOf } from '../platform/settings';
import { recheckCredential, refuseLapsed } from './current-credential';
import { tokenRequestOf } from './token-request';

export const tokens = new Hono<AppEnv>();

export function view(record: ApiTokenRecord): ApiToken {
  const { id, name, scopes, sites, created, expires, lastUsed, job, parentId } = record;
  // A site token made before roles acts as a deployer (src/auth/authority.ts), and says so.
  const role = sites === null ? null : job ? 'deployer' : (record.role ?? 'deployer');
  return {
    id,
    name,
    scopes,
    sites,
    role,
    ...(job ? { via: 'github-oidc' as const } : {}),
    createdAt: timestamp(created),
    expiresAt: timestamp(expires),
    lastUsedAt: lastUsed === null ? null : timestamp(lastUsed),
    parentId,
  };
}

/**
 * Logs the user's own event. The change has happened whatever becomes of it: should the log be
 * unreachable, the change still answers and the failure is logged (docs/events.md).
 */
export async function announce(env: Env, key: string, event: UserEvent): Promise<void> {
  try {
    await publishToUser(env, key, event);
  } catch (error) {
    log.error('A token event could not be logged', { key, type: event.type, error });
  }
}

resource(tokens, '/v2/tokens', {
  GET: [requireScope(), async (c) => c.json({ tokens: (await listTokensOf(c.env.DB, c.get('principal').userId, Date.now())).map(view) })],
  POST: [
    requireScope(),
    async (c) => {
      const now = Date.now();
      const request = await tokenRequestOf(await readJsonBody(c.req.raw, 'application/json'), c, now);
      const caller = c.get('principal');
      const { userId } = caller;
      const token = newToken();
      const record: ApiTokenRecord = {
        id: newTokenId(),
        userId,
        hash: await sha256Hex(token),
        name: request.name,
        scopes: request.scopes,
        sites: request.sites,
        role: request.role,
        job: null,
        created: now,
        expires: request.expires,
        lastUsed: null,
        parentId: caller.tokenId,
      };
      const { perUser } = settingsOf(c.env).apiTokens;
      // Inserted only while the caller's credential holds in D1 at this instant, whatever the location remembers of it.
      const refused = await insertToken(c.env.DB, record, perUser, now, caller);
      if (refused === 'quota') {
        throw new Problem('quota-exceeded', `You hold ${perUser} unexpired tokens, as many as you may: revoke one first (API_TOKENS_PER_USER is ${perUser}).`, {
          extensions: { limit: 'API_TOKENS_PER_USER', value: perUser },
        });
      }
      if (refused !== null) refuseLapsed(caller, refused);
      const created = view(record);
      await announce(c.env, `token-create:${record.id}`, { type: 'token-create', userId, ...created });
      const body: CreatedApiToken = { ...created, token };
      return c.json(body, 201, { 'cache-control': 'no-store' });
    },
  ],
  DELETE: [
    requireScope(),
    recheckCredential,
    async (c) => {
      const { userId } = c.get('principal');
      // Whole seconds, as JWTs' `iat`: every JWT issued up to this instant is before the line.
      const before = Math.ceil(Date.now() / 1000);
      const revoked = await signOutEverywhere(c.env.DB, userId, before);
      await forgetRevoked(c.env, revoked.map((record) => record.hash), userId);
      const signedOutBefore = timestamp(before * 1000);
      await announce(c.env, `sign-out:${userId}:${before}`, { type: 'token-revoke', userId, ids: revoked.map((record) => record.id), everywhere: true, signedOutBefore });
      const body: SignOut = { revoked: revoked.length, signedOutBefore };
      return c.json(body);
    },
  ],
});

resource(tokens, '/v2/tokens/:id', {
  DELETE: [
    requireScope(),
    recheckCredential,
    async (c) => {
      const id = c.req.param('id') ?? '';
      // The token and every token it made, theirs too.
      const revoked = isTokenId(id) ? await deleteToken(c.env.DB, c.get('principal').userId, id) : [];
      if (revoked.length === 0) throw new Problem('not-found', `You have no token ${JSON.stringify(id)}.`);
      await forgetRevoked(c.env, revoked.map((record) => record.hash));
      const ids = revoked.map((record) => record.id);
      await announce(c.env, `token-revoke:${id}`, { type: 'token-revoke', userId: revoked[0]!.userId, ids, everywhere: false });
      return c.body(null, 204);
    },
  ],
});
