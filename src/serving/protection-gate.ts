/**
 * The protection check of a site's hosts (docs/serving.md, "Protected sites"). It runs on every
 * request once the site's live record is read (it carries the protection), before the
 * deployment's index or any file is read from the location's cache or R2: a visitor who is not
 * let in reaches nothing of the site. Letting one in costs one HMAC verification of the grant
 * cookie, and once the isolate has verified it lookups in memory (the field's token, then its
 * grant: ./grant-cookie.ts, ./verified-grants.ts); no storage is read. A member is then served from the same isolate memory, location cache and R2
 * as an open site's visitor, by the same content keys: those hold a deployment's bytes, never an
 * answer, so nothing stored can answer a request the gate did not let in. Every answer of a
 * protected host is private (`privately`).
 */
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import type { RequestPath } from '../http/request-path';
import { settingsOf } from '../platform/settings';
import { grantOpens } from '../protection/grant';
import type { StoredPassword } from '../protection/password-hash';
import { type SiteMode, grantEpoch, hostMode } from '../protection/site-protection';
import { protectionOf } from '../coordinator/access/protection-change';
import type { SiteRecord } from '../storage/sites-table';
import { mergedVary } from '../rules/header-fields';
import { grantTokenOf, setGrantCookie } from './grant-cookie';
import { grantKey, grantPaths, sameHostPath } from './grant-key';
import { WeightedLru } from './lru';
import { membersOnly } from './private-pages';
import { rememberedGrant } from './verified-grants';
import { signIn, signInForm } from './sign-in';
import { fileNotFound } from './pages';

/** Who may open one host of a site, from the site's live record. */
export interface HostAccess {
  mode: SiteMode;
  /** The name grants for it carry: the site's domain, or the preview host's name. */
  host: string;
  epoch: string;
  password: StoredPassword | null;
}

/** The access to `host`, one of the site's hosts (`preview`: a deployment's or an alias's); a site gone since opens to members only. */
export function hostAccessOf(env: Env, site: SiteRecord | null, host: string, preview: boolean): HostAccess {
  const protection = protectionOf(site ?? { protection: null }, settingsOf(env).protection.newSitePreviews);
  return { mode: hostMode(protection, preview), host, epoch: grantEpoch(site?.created ?? 0, protection), password: protection.password };
}

/** Let in (and whether the host is protected, so its answers are private), or the answer in its place. */
export type Admission = { private: boolean } | { answer: Response };

const isGrantPath = (path: RequestPath, of: string) => path.segments.length === 2 && `/${path.segments.join('/')}` === of && !path.directory;

export async function admit(request: Request, url: URL, env: Env, access: HostAccess, path: RequestPath): Promise<Admission> {
  if (isGrantPath(path, grantPaths.open)) return { answer: await openLink(url, env, access) };
  if (isGrantPath(path, grantPaths.signIn)) {
    if (access.mode !== 'password') return { answer: fileNotFound() };
    if (request.method === 'POST') return { answer: await signIn(request, url, env, access) };
    return { answer: await signInForm(request, env, url, access, sameHostPath(url.searchParams.get('to')) ?? '/') };
  }
  if (access.mode === 'public') return { private: false };
  // Read once: each read of a field crosses into the runtime.
  const cookie = request.headers.get('cookie');
  const oversized = oversizedCredentials(request, env, cookie);
  if (oversized) return { answer: oversized };
  const token = grantTokenOf(cookie);
  const now = Date.now() / 1000;
  const grant = token === undefined ? undefined : await rememberedGrant(await grantKey(env), token, now);
  const opens = grant !== undefined && grantOpens(grant, access.host, access.epoch, now) && (grant.kind === 'link' || access.mode === 'password');
  if (opens) return { private: true };
  if (access.mode === 'members') return { answer: membersOnly(grant === undefined ? 'none' : 'stale') };
  return { answer: await signInForm(request, env, url, access, `${url.pathname}${url.search}`) };
}

/** A share link: its grant becomes the host's cookie, and the visitor lands on its path without it in the address bar. */
async function openLink(url: URL, env: Env, access: HostAccess): Promise<Response> {
  const token = url.searchParams.get('grant') ?? '';
  const now = Date.now() / 1000;
  const grant = await rememberedGrant(await grantKey(env), token, now);
  if (!grant || grant.kind !== 'link' || !grantOpens(grant, access.host, access.epoch, now)) return membersOnly('stale');
  return new Response(null, {
    status: 303,
    headers: { location: sameHostPath(grant.path) ?? '/', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'set-cookie': setGrantCookie(url, token, grant.expires - now) },
  });
}

/** 431 naming the limit for a `Cookie` or `Authorization` field longer than MAX_CREDENTIAL_HEADER_BYTES: nothing that long is read. `cookie`: the request's `Cookie` field, when the caller read it already. */
export function oversizedCredentials(request: Request, env: Env, cookie = request.headers.get('cookie')): Response | undefined {
  const limit = settingsOf(env).protection.maxCredentialHeaderBytes;
  if (cookie !== null && cookie.length > limit) return credentialsTooLarge('Cookie', cookie.length, limit);
  const authorization = request.headers.get('authorization');
  if (authorization !== null && authorization.length > limit) return credentialsTooLarge('Authorization', authorization.length, limit);
  return undefined;
}

function credentialsTooLarge(field: 'Cookie' | 'Authorization', length: number, limit: number): Response {
  return new Problem('request-header-too-large', `The ${field} field is ${length} bytes; a protected site reads at most ${limit}.`, {
    extensions: { limit: 'MAX_CREDENTIAL_HEADER_BYTES', value: limit },
    headers: { 'cache-control': 'no-store' },
  }).toResponse();
}

/**
 * The private forms of an answer's `Cache-Control` and `Vary` (`privately`), by what it carried
 * and what let the visitor in: a site's answers carry few distinct values, so each is worked out
 * once rather than split, filtered and joined on every request. Weighed by the key's length.
 */
const privateFields = new WeightedLru<string, { cacheControl: string; vary: string }>(64 * 1024);

/**
 * A protected host's answer, made private: `Cache-Control: private` (a `public` or `s-maxage` the
 * site set is dropped, so no shared cache stores it), and `Vary` naming what let the visitor in.
 */
export function privately(response: Response, varyBy: 'Cookie' | 'Authorization'): Response {
  const { headers } = response;
  const cacheControl = headers.get('cache-control') ?? '';
  const vary = headers.get('vary') ?? '';
  const key = `${varyBy}\n${cacheControl}\n${vary}`;
  let fields = privateFields.get(key);
  if (!fields) privateFields.set(key, (fields = { cacheControl: privateCacheControl(cacheControl), vary: mergedVary(vary, varyBy) }), key.length);
  headers.set('cache-control', fields.cacheControl);
  headers.set('vary', fields.vary);
  return response;
}

function privateCacheControl(cacheControl: string): string {
  const kept = cacheControl
    .split(',')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !/^(public|private|s-maxage=.*|immutable)$/i.test(directive));
  return ['private', ...kept].join(', ');
}
