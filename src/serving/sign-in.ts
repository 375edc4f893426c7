/**
 * The sign-in form of a site whose password lets visitors in, served on the site's own host at
 * `/.sitehost/sign-in` and posting to itself. A post is counted against the sender's address
 * (SIGN_IN_RATE_LIMITER) before anything else, must carry the form's CSRF token (signed for this
 * host, under an hour old) and the matching `Strict` cookie, and must come from this origin when
 * the browser says where it comes from. The password is checked by one PBKDF2 derivation and a
 * constant-time comparison (src/protection/password-hash.ts); the right one sets the grant cookie.
 */
import { base64url } from 'jose';
import { BodyTooLarge, readAtMost } from '../http/bounded-read';
import { clientAddressOf } from '../http/client-address';
import type { Env } from '../platform/env';
import { rateLimitPeriodSeconds } from '../platform/binding-checks';
import { signGrant } from '../protection/grant';
import { constantTimeEqual, passwordMatches } from '../protection/password-hash';
import { cookieOf, csrfCookie, setCsrfCookie, setGrantCookie } from './grant-cookie';
import { grantKey, grantPaths, sameHostPath } from './grant-key';
import { passwordForm, signInRateLimited, signInRefused } from './private-pages';
import type { HostAccess } from './protection-gate';

/** How long a password sign-in lets a visitor in: a week, or until the password changes or the owner signs everyone out. */
export const signInSeconds = 7 * 24 * 3600;
const csrfSeconds = 3600;
/** A sign-in post is a password and two short fields. */
const maxFormBytes = 16 * 1024;

const encoder = new TextEncoder();

async function csrfSignature(env: Env, host: string, issued: number, nonce: string): Promise<Uint8Array> {
  // "csrf." never begins a grant's signed text (base64url of JSON), so neither passes for the other.
  return new Uint8Array(await crypto.subtle.sign('HMAC', await grantKey(env), encoder.encode(`csrf.${host}.${issued}.${nonce}`)));
}

/**
 * The form for `returnTo`, with a fresh CSRF token for the browser's CSRF cookie, set when it has
 * none: a browser asks for more than the page (its icon, other tabs), and a cookie replaced by
 * each of them would no longer match the form on screen.
 */
export async function signInForm(request: Request, env: Env, url: URL, access: HostAccess, returnTo: string, wrong = false): Promise<Response> {
  const issued = Math.floor(Date.now() / 1000);
  const held = cookieOf(request.headers.get('cookie'), csrfCookie);
  const nonce = held !== undefined && /^[A-Za-z0-9_-]{22}$/.test(held) ? held : base64url.encode(crypto.getRandomValues(new Uint8Array(16)));
  const csrf = `${issued}.${nonce}.${base64url.encode(await csrfSignature(env, access.host, issued, nonce))}`;
  const response = passwordForm({ action: grantPaths.signIn, returnTo, csrf, wrong });
  if (nonce !== held) response.headers.append('set-cookie', setCsrfCookie(url, nonce));
  return response;
}

async function csrfHolds(env: Env, request: Request, access: HostAccess, token: string): Promise<boolean> {
  const [issuedText = '', nonce = '', signature = ''] = token.split('.');
  const issued = Number(issuedText);
  const cookie = cookieOf(request.headers.get('cookie'), csrfCookie);
  if (!/^\d{1,12}$/.test(issuedText) || Date.now() / 1000 - issued > csrfSeconds || cookie === undefined) return false;
  let given: Uint8Array;
  try {
    given = base64url.decode(signature);
  } catch {
    return false;
  }
  const expected = await csrfSignature(env, access.host, issued, nonce);
  return constantTimeEqual(given, expected) && constantTimeEqual(encoder.encode(cookie), encoder.encode(nonce));
}

/** A post of the form: 303 to where the visitor was going with the grant cookie, the form again (401) for a wrong password, 429 past the rate limit. */
export async function signIn(request: Request, url: URL, env: Env, access: HostAccess): Promise<Response> {
  const { success } = await env.SIGN_IN_RATE_LIMITER.limit({ key: clientAddressOf(request) });
  if (!success) return signInRateLimited(rateLimitPeriodSeconds);
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== url.origin) return signInRefused();
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(new TextDecoder().decode(await readAtMost(request.body, maxFormBytes)));
  } catch (error) {
    if (error instanceof BodyTooLarge) return signInRefused();
    throw error;
  }
  if (!(await csrfHolds(env, request, access, form.get('csrf') ?? ''))) return signInRefused();
  const returnTo = sameHostPath(form.get('to')) ?? '/';
  if (!(await passwordMatches(form.get('password') ?? '', access.password))) return signInForm(request, env, url, access, returnTo, true);
  const expires = Math.floor(Date.now() / 1000) + signInSeconds;
  const token = await signGrant(await grantKey(env), { host: access.host, expires, epoch: access.epoch, kind: 'password' });
  return new Response(null, {
    status: 303,
    headers: { location: returnTo, 'cache-control': 'no-store', 'set-cookie': setGrantCookie(url, token, signInSeconds) },
  });
}
