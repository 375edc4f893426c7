/**
 * The key grants are signed with (src/protection/grant.ts): derived from AUTH_SECRET, the one
 * secret every deployment of the service has (wrangler.toml requires it in production), so that
 * protection needs nothing more to set up; rotating AUTH_SECRET signs every visitor out too.
 */
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { grantKeyOf } from '../protection/grant';

const keys = new Map<string, Promise<CryptoKey>>();

export function grantKey(env: Pick<Env, 'AUTH_SECRET'>): Promise<CryptoKey> {
  const secret = env.AUTH_SECRET;
  if (!secret) throw new Problem('internal', 'AUTH_SECRET is not set: share links and sign-ins of protected sites are signed with a key derived from it (docs/operating.md).');
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = grantKeyOf(secret)));
  return key;
}

/** Where a share link or sign-in form is answered on every site's host: a path no deployment's file takes. */
export const grantPaths = { open: '/.sitehost/grant', signIn: '/.sitehost/sign-in' } as const;

/** A same-host path to land on (`/docs/?a=1`), or undefined for anything that could leave the host (`//evil.example`, `/\evil.example`, `https:…`). */
export function sameHostPath(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length > 2048 || !path.startsWith('/') || path.startsWith('//')) return undefined;
  // Browsers read "\" as "/" in a URL's path; controls and spaces are never in a path a link should carry.
  if (/[\\\u0000-\u0020\u007f]/.test(path)) return undefined;
  const base = 'http://host.invalid';
  const url = URL.canParse(path, base) ? new URL(path, base) : undefined;
  return url?.origin === base ? `${url.pathname}${url.search}` : undefined;
}
