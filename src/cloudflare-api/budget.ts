/**
 * The account's budget of calls to Cloudflare's API, kept in the account object's storage so
 * that a restarted object goes on counting (docs/serving.md, "Purges within Cloudflare's limits").
 *
 * Cloudflare allows `requestsPerWindow` calls per window per token and refuses every call for
 * the next five minutes past that, certificate calls included. So the budget counts every call
 * it let out in the last window (a sliding log: under it, no window of Cloudflare's, fixed or
 * sliding, sees more), keeps `reservedForCertificates` of them from purges, spaces purges evenly
 * over the window (a flood of changes then makes bigger requests rather than a five-minute gap),
 * holds purges within the plan's URLs per second, and stops every call until a 429's
 * `Retry-After` has passed.
 *
 * Hand-written: the rate-limit libraries count one limit in memory; this one is three limits,
 * stored, and answers *when* a call may go rather than whether it may go now.
 */
import type { CloudflareApiSettings } from '../platform/settings';

export type CallKind = 'purge' | 'certificate';

export interface PurgeRate {
  /** The plan's purge-by-URL rate. */
  urlsPerSecond: number;
}

const callPrefix = 'budget/call/';

/**
 * The window the budget counts in: Cloudflare's, and 1 % more, so that Cloudflare's clock (which
 * sees each call a network trip later, give or take) never counts one call more in its window.
 */
function windowMsOf(windowSeconds: number): number {
  return windowSeconds * 1010;
}
const blockedKey = 'budget/blocked-until';

interface Call {
  at: number;
  kind: CallKind;
}

export class ApiBudget {
  /** Calls let out in the last window, oldest first. */
  readonly #calls: Call[] = [];
  #blockedUntil: number;
  /** Purge-by-URL tokens (a token bucket of one second's URLs); starts empty, so a restart never bursts past the plan's rate. */
  #urlTokens = 0;
  #urlTokensAt = Date.now();
  #seq = 0;

  constructor(
    private readonly kv: SyncKvStorage,
    private readonly limits: () => CloudflareApiSettings & PurgeRate,
  ) {
    for (const [key, kind] of kv.list<CallKind>({ prefix: callPrefix })) this.#calls.push({ at: Number(key.slice(callPrefix.length).split('/')[0]), kind });
    this.#blockedUntil = kv.get<number>(blockedKey) ?? 0;
  }

  /** Until when Cloudflare refuses every call (a 429's `Retry-After`); 0 when it does not. */
  get blockedUntil(): number {
    return this.#blockedUntil;
  }

  /** The earliest time, from `now` on, a call of `kind` carrying `urls` URLs may go out. */
  nextCall(kind: CallKind, now: number, urls = 0): number {
    this.#forget(now);
    const { requestsPerWindow, reservedForCertificates, windowSeconds, urlsPerSecond } = this.limits();
    const windowMs = windowMsOf(windowSeconds);
    let at = Math.max(now, this.#blockedUntil, this.#freedAt(this.#calls, requestsPerWindow, windowMs));
    if (kind === 'purge') {
      const purges = this.#calls.filter((call) => call.kind === 'purge');
      const share = requestsPerWindow - reservedForCertificates;
      const spacing = windowMs / share;
      at = Math.max(at, this.#freedAt(purges, share, windowMs), (purges.at(-1)?.at ?? -Infinity) + spacing);
      at = Math.max(at, now + this.#urlWaitMs(Math.min(urls, urlsPerSecond), now, urlsPerSecond));
    }
    return at;
  }

  /** Counts a call let out at `now`, and its URLs. */
  record(kind: CallKind, now: number, urls = 0): void {
    this.#calls.push({ at: now, kind });
    this.kv.put(`${callPrefix}${String(now).padStart(15, '0')}/${this.#seq++}`, kind);
    if (urls > 0) {
      this.#refill(now, this.limits().urlsPerSecond);
      this.#urlTokens -= urls;
    }
  }

  /** Cloudflare refused with 429: no call until `until`. */
  block(until: number): void {
    if (until <= this.#blockedUntil) return;
    this.#blockedUntil = until;
    this.kv.put(blockedKey, until);
  }

  /** When `calls` (oldest first) leave room for one more under `cap` per window. */
  #freedAt(calls: readonly Call[], cap: number, windowMs: number): number {
    return calls.length < cap ? -Infinity : calls[calls.length - cap]!.at + windowMs;
  }

  #urlWaitMs(urls: number, now: number, urlsPerSecond: number): number {
    this.#refill(now, urlsPerSecond);
    return urls <= this.#urlTokens ? 0 : Math.ceil(((urls - this.#urlTokens) / urlsPerSecond) * 1000);
  }

  #refill(now: number, urlsPerSecond: number): void {
    this.#urlTokens = Math.min(urlsPerSecond, this.#urlTokens + ((now - this.#urlTokensAt) / 1000) * urlsPerSecond);
    this.#urlTokensAt = now;
  }

  /** Drops the calls older than the window, from memory and storage. */
  #forget(now: number): void {
    const windowMs = windowMsOf(this.limits().windowSeconds);
    let old = 0;
    while (old < this.#calls.length && this.#calls[old]!.at <= now - windowMs) old++;
    if (old === 0) return;
    this.#calls.splice(0, old);
    for (const [key] of this.kv.list({ prefix: callPrefix, end: `${callPrefix}${String(now - windowMs + 1).padStart(15, '0')}` })) this.kv.delete(key);
  }
}
