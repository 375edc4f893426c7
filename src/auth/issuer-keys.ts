/**
 * The signing keys of the GitHub Actions ID tokens' issuer, found through its discovery document
 * (`<issuer>/.well-known/openid-configuration` → `jwks_uri`). Both are fetched with a deadline and
 * read up to a size cap, so a slow or hostile issuer (or one answering a document of gigabytes)
 * holds no request; kept for an hour, so an exchange costs no fetch; and a failure is remembered
 * for OIDC_ISSUER_RETRY_SECONDS, so that while the issuer is down every exchange answers 503 at
 * once instead of each waiting for the deadline. A token signed by a key not in the cached set
 * fetches the set again, at most once per that long (the issuer rotated its keys).
 */
import { type JSONWebKeySet, type JWTVerifyGetKey, createLocalJWKSet, errors } from 'jose';
import { readAtMost } from '../http/bounded-read';
import { KeysUnavailable } from './tokens';

/** How long a fetch of the discovery document or the key set may take. */
export const issuerFetchMs = 5_000;
/** A discovery document or key set past this many bytes is refused (GitHub's are about 2 KB). */
export const maxIssuerDocumentBytes = 64 * 1024;
/** Documents are read again after this long: an issuer may move its keys. */
const cacheMs = 60 * 60_000;

interface Known {
  keys: JWTVerifyGetKey;
  at: number;
}

const known = new Map<string, Known>();
/** When each issuer last failed to answer. */
const failed = new Map<string, number>();

/** The JSON at `url`, fetched within the deadline and read within the cap; KeysUnavailable otherwise. */
async function fetchJson(url: string): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(issuerFetchMs);
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw new KeysUnavailable(`${url} answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxIssuerDocumentBytes) {
      await response.body?.cancel();
      throw new KeysUnavailable(`${url} is ${declared} bytes, past ${maxIssuerDocumentBytes}`);
    }
    const document: unknown = JSON.parse(new TextDecoder().decode(await readAtMost(response.body, maxIssuerDocumentBytes, signal)));
    if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new KeysUnavailable(`${url} is not a JSON object`);
    return document as Record<string, unknown>;
  } catch (error) {
    if (error instanceof KeysUnavailable) throw error;
    throw new KeysUnavailable(`${url}: ${String(error)}`);
  }
}

/** The issuer's key set, from its discovery document's `jwks_uri`; one that names another issuer is refused. */
async function fetchKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const discovery = await fetchJson(`${issuer}/.well-known/openid-configuration`);
  if (discovery.issuer !== issuer || typeof discovery.jwks_uri !== 'string' || !URL.canParse(discovery.jwks_uri)) {
    throw new KeysUnavailable(`the discovery document of ${issuer} names another issuer, or no jwks_uri`);
  }
  const set = await fetchJson(discovery.jwks_uri);
  if (!Array.isArray(set.keys)) throw new KeysUnavailable(`${discovery.jwks_uri} holds no "keys"`);
  return createLocalJWKSet(set as unknown as JSONWebKeySet);
}

/** The issuer's keys as cached, fetched when none are or they are old; KeysUnavailable while it failed within `retryMs`. */
async function keysOf(issuer: string, now: number, retryMs: number, refresh: boolean): Promise<JWTVerifyGetKey> {
  const cached = known.get(issuer);
  if (cached && !refresh && now - cached.at < cacheMs) return cached.keys;
  const lastFailure = failed.get(issuer);
  if (lastFailure !== undefined && now - lastFailure < retryMs) throw new KeysUnavailable(`${issuer} failed ${now - lastFailure} ms ago`);
  // A refresh for an unknown key is a fetch too: at most one per retryMs.
  if (refresh && cached && now - cached.at < retryMs) return cached.keys;
  try {
    const keys = await fetchKeys(issuer);
    known.set(issuer, { keys, at: now });
    failed.delete(issuer);
    return keys;
  } catch (error) {
    failed.set(issuer, now);
    throw error;
  }
}

/** A jose key lookup for tokens of `issuer`: a key not in the cached set fetches the set once more. */
export function issuerKeys(issuer: string, now: number, retryMs: number): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await (await keysOf(issuer, now, retryMs, false))(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      return (await keysOf(issuer, now, retryMs, true))(header, token);
    }
  };
}
