/**
 * What a location remembers of its checks of credentials (an API token's record, a user's
 * sign-out line), so that verifying a bearer token costs no D1 round trip on every request: the
 * isolate's memory first, then the location's Cache API, shared by its isolates, and D1 only
 * when neither holds a check younger than API_TOKEN_CHECK_SECONDS. Each check carries the time
 * D1 answered it and is trusted until then plus that many seconds, wherever it is read from, so
 * no copy outlives it: a revocation reaches every location within API_TOKEN_CHECK_SECONDS.
 */
import type { Env } from '../platform/env';
import { settingsOf } from '../platform/settings';
import { sha256Hex } from './token-format';

/** A check as D1 answered it, and when. */
interface Checked<T> {
  value: T;
  checkedAt: number;
}

/**
 * What a check needs of the request: the bindings, a way to finish writes after the answer, the
 * time, and what to do before asking D1 (the per-address rate limit counts the request there, so
 * that what costs a D1 read is counted before it is spent: src/api/rate-limit.ts).
 */
export interface CheckContext {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  now: number;
  beforeLookup?: () => Promise<void>;
}

/** A Map that forgets its oldest entries past `limit`: an isolate has 128 MB. */
export class BoundedMap<V> {
  readonly #entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/** Checks this isolate remembers: some hundred bytes each. */
const memory = new BoundedMap<Checked<unknown>>(10_000);

/** The Cache API's key of a check: by the SHA-256 of its name, which may hold any text (a user id). */
async function cacheUrl(env: Env, key: string): Promise<string> {
  return `https://${settingsOf(env).edge.cacheHost}/.sitehost-auth/${await sha256Hex(key)}`;
}

/**
 * The check named `key`: remembered here if young enough, else `load`ed from D1 and remembered
 * (unless `remember` refuses the answer: an unknown token is the caller's to remember, apart).
 */
export async function checkedAtLocation<T>(
  { env, waitUntil, now, beforeLookup }: CheckContext,
  key: string,
  load: () => Promise<T>,
  remember: (value: T) => boolean = () => true,
): Promise<T> {
  const trustMs = settingsOf(env).apiTokens.checkSeconds * 1000;
  const remembered = memory.get(key) as Checked<T> | undefined;
  if (remembered && now - remembered.checkedAt < trustMs) return remembered.value;
  const url = await cacheUrl(env, key);
  if (trustMs > 0) {
    const cached = await caches.default.match(url);
    const entry = cached && (await cached.json<Checked<T>>());
    if (entry && now - entry.checkedAt < trustMs) {
      memory.set(key, entry);
      return entry.value;
    }
  }
  await beforeLookup?.();
  const entry: Checked<T> = { value: await load(), checkedAt: now };
  if (!remember(entry.value)) return entry.value;
  memory.set(key, entry);
  if (trustMs > 0) {
    const body = JSON.stringify(entry);
    waitUntil(caches.default.put(url, new Response(body, { headers: { 'cache-control': `max-age=${Math.ceil(trustMs / 1000)}` } })));
  }
  return entry.value;
}

/** Forgets the check `key` at this location (a revocation's own location refuses at once). */
export async function forgetAtLocation(env: Env, key: string): Promise<void> {
  memory.delete(key);
  await caches.default.delete(await cacheUrl(env, key));
}
