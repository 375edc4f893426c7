/**
 * What a location's memory of a credential (src/auth/location-checks.ts) may not answer
 * (docs/design.md, "Revocation that holds"): a change of members, trust or a site's very
 * existence, and the start of an event stream, re-check their caller against D1 itself, so that a
 * credential revoked a moment ago, at whatever location, or a user signed out everywhere or
 * suspended, does none of them.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../platform/app-env';
import { invalidToken } from '../auth/middleware';
import { type Standing, standingOf } from '../auth/token-store';
import type { Principal } from '../auth/tokens';
import { refuseSuspendedUser } from '../coordinator/access/access';
import type { Env } from '../platform/env';

/** Throws 401 when `principal`'s credential no longer holds. */
function refuseRevoked(principal: Principal, standing: Standing): void {
  if (!standing.holds) {
    throw invalidToken(principal.tokenId === null ? 'The token was issued before its user signed out everywhere; sign in again.' : 'The token was revoked, or has expired.');
  }
}

/** Throws 401 when `principal`'s credential no longer holds, 403 `user-suspended` when its user is suspended. */
export function refuseLapsed(principal: Principal, standing: Standing): void {
  refuseRevoked(principal, standing);
  refuseSuspendedUser(principal.userId, standing.suspension);
}

/**
 * Whether `principal`'s credential holds and its user is not suspended, as D1 has them now, and it
 * has not expired: a JWT's `exp` is in no row of D1, and a stream outlives the request that checked it.
 */
export async function credentialHolds(env: Env, principal: Principal): Promise<boolean> {
  const now = Date.now();
  if (principal.expiresAt <= now) return false;
  const standing = await standingOf(env.DB, principal, now);
  return standing.holds && standing.suspension === null;
}

/** Re-checks the caller (set by the route's scope check) against D1 before the handler acts. */
export const recheckCaller = createMiddleware<AppEnv>(async (c: Context<AppEnv>, next) => {
  const principal = c.get('principal');
  refuseLapsed(principal, await standingOf(c.env.DB, principal, Date.now()));
  await next();
});

/**
 * Re-checks only that the caller's credential holds, for what takes power away (revoking tokens,
 * signing out everywhere): a suspended user may still do that, a credential revoked elsewhere may not.
 */
export const recheckCredential = createMiddleware<AppEnv>(async (c: Context<AppEnv>, next) => {
  const principal = c.get('principal');
  refuseRevoked(principal, await standingOf(c.env.DB, principal, Date.now()));
  await next();
});
