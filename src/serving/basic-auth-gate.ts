/**
 * HTTP Basic protection of the paths a deployment's `_headers` gives `Basic-Auth` (src/rules). A
 * browser sends the credentials with every request, so each would cost a PBKDF2 derivation; the
 * isolate remembers instead, per deployment's rule, the SHA-256 digests of `Authorization` values
 * it has checked and found right, and a request with one of them costs one digest.
 */
import type { RequestPath } from '../http/request-path';
import type { Env } from '../platform/env';
import { type HashedCredential, basicCredentialsOf, credentialMatches } from '../protection/basic-auth';
import { type CompiledSiteRules, basicAuthOf } from '../rules/compiled-rules';
import { basicChallenge } from './private-pages';
import { type Admission, oversizedCredentials } from './protection-gate';

/** Right answers remembered per rule: a few visitors each; past this many the rule's memory starts again. */
const rememberedPerRule = 256;
const rightAnswers = new WeakMap<readonly HashedCredential[], Set<string>>();

async function digestOf(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Let in when no `Basic-Auth` rule covers `path` or the request's credentials are among its own; a 401 challenge naming `realm` otherwise. */
export async function admitBasic(request: Request, env: Env, rules: CompiledSiteRules, path: RequestPath, realm: string): Promise<Admission> {
  const accepted = basicAuthOf(rules, path);
  if (!accepted) return { private: false };
  const oversized = oversizedCredentials(request, env);
  if (oversized) return { answer: oversized };
  const authorization = request.headers.get('authorization');
  const given = basicCredentialsOf(authorization);
  if (!given) return { answer: basicChallenge(realm) };
  let remembered = rightAnswers.get(accepted);
  if (!remembered) rightAnswers.set(accepted, (remembered = new Set()));
  const digest = await digestOf(authorization!);
  if (remembered.has(digest)) return { private: true };
  if (!(await credentialMatches(given, accepted))) return { answer: basicChallenge(realm) };
  if (remembered.size >= rememberedPerRule) remembered.clear();
  remembered.add(digest);
  return { private: true };
}
