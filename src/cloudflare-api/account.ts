/**
 * Every call the service makes to Cloudflare's API passes through this one object
 * (`idFromName('account')`): Cloudflare's limits are per token, account-wide, so only one
 * place can keep the service under them (./budget.ts). It also batches purges: the URLs of
 * concurrent changes share a request (./pending-purges.ts), one request at a time, as often as
 * the budget allows. docs/serving.md gives the argument and the numbers.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { settingsOf } from '../platform/settings';
import { ApiBudget } from './budget';
import { PendingPurges } from './pending-purges';
import { type ZoneAnswer, type ZoneApiOptions, type ZoneCall, sendZoneCall, tooManyRequests } from './zone-api';

/** Whether Cloudflare accepted a purge within the wait, or it is stored and will be sent. */
export type PurgeState = 'accepted' | 'pending';

/** After a failure other than a 429 (Cloudflare down, a bad token), purges are tried again after 1 s, doubling up to a minute. */
const firstRetryMs = 1_000;
const lastRetryMs = 60_000;
/** While a request is on its way, the alarm stands by this far ahead, in case the object stops before it is answered. */
const standbyMs = 10_000;

export class CloudflareAccount extends DurableObject<Env> {
  readonly #budget = new ApiBudget(this.ctx.storage.kv, () => {
    const { cloudflareApi, edge } = settingsOf(this.env);
    return { ...cloudflareApi, urlsPerSecond: edge.purgeUrlsPerSecond };
  });
  readonly #purges = new PendingPurges(this.ctx.storage.kv);
  /** The purge request on its way, if any: one at a time. */
  #sending: Promise<void> | undefined;
  /** Failures in a row other than 429, and when purges may be tried again after the last. */
  #failures = 0;
  #retryAt = 0;
  /** The alarm this object set, so that it is not set again for the same time or later. */
  #alarmAt: number | undefined;
  /** How calls reach Cloudflare: tests answer as its API here. */
  send: typeof fetch = (input, init) => fetch(input, init);

  /**
   * Stores `urls` for purging and answers once Cloudflare accepted a request carrying them, or
   * after `waitMs` with the purge pending (at once when the budget forbids any call until then).
   * Returns only once they are stored: no purge handed over is lost.
   */
  async purge(urls: readonly string[], waitMs: number): Promise<PurgeState> {
    const ask = this.#purges.add(urls);
    this.#schedule();
    if (waitMs === 0 || this.#budget.blockedUntil > Date.now() + waitMs) {
      ask.cancel();
      return 'pending';
    }
    const state = await Promise.race([ask.purged.then(() => 'accepted' as const), scheduler.wait(waitMs).then(() => 'pending' as const)]);
    if (state === 'pending') ask.cancel();
    return state;
  }

  /** A certificate call (Cloudflare for SaaS) within the budget: refused as a 429 with `retryAfterSeconds` when it has no room now. */
  async call(call: ZoneCall): Promise<ZoneAnswer> {
    const now = Date.now();
    const at = this.#budget.nextCall('certificate', now);
    if (at > now) {
      const retryAfterSeconds = Math.ceil((at - now) / 1000);
      return { ok: false, status: tooManyRequests, codes: [], message: `Cloudflare API: the service's budget of calls is spent; retry in ${retryAfterSeconds} s`, retryAfterSeconds };
    }
    this.#budget.record('certificate', now);
    const answer = await sendZoneCall(this.#zone(), call);
    this.#noteRateLimit(answer);
    return answer;
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = undefined;
    this.#schedule();
    await this.#sending;
  }

  /**
   * Sends the next purge request now if the budget allows, else sets the alarm for when it will.
   * The alarm is set in both cases: it sends what a stopped object left (the URLs are stored).
   */
  #schedule(): void {
    if (this.#sending || this.#purges.waiting === 0) return;
    const now = Date.now();
    const at = Math.max(this.#retryAt, this.#budget.nextCall('purge', now, Math.min(this.#purges.waiting, this.#batchSize())));
    this.#setAlarm(at > now ? at : now + standbyMs);
    if (at > now) return;
    this.#sending = this.#sendBatch().finally(() => {
      this.#sending = undefined;
      this.#schedule();
    });
  }

  #setAlarm(at: number): void {
    if (this.#alarmAt !== undefined && this.#alarmAt > Date.now() && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  #batchSize(): number {
    const { purgeUrlsPerRequest, purgeUrlsPerSecond } = settingsOf(this.env).edge;
    return Math.min(purgeUrlsPerRequest, purgeUrlsPerSecond);
  }

  async #sendBatch(): Promise<void> {
    const batch = this.#purges.take(this.#batchSize());
    this.#budget.record('purge', Date.now(), batch.length);
    const answer = await sendZoneCall(this.#zone(), { method: 'POST', path: '/purge_cache', body: { files: batch.map((entry) => entry.url) } });
    if (answer.ok) {
      this.#purges.accepted(batch);
      this.#failures = 0;
      this.#retryAt = 0;
      return;
    }
    this.#purges.refused(batch);
    if (this.#noteRateLimit(answer)) return;
    this.#failures++;
    this.#retryAt = Date.now() + Math.min(lastRetryMs, firstRetryMs * 2 ** (this.#failures - 1));
    log.error('Cloudflare refused a purge; it is kept and sent again', { urls: batch.length, status: answer.status, reason: answer.message, retryAt: this.#retryAt });
  }

  /** A 429 stops every call until its `Retry-After` (Cloudflare's lockout, a window, without one). */
  #noteRateLimit(answer: ZoneAnswer): boolean {
    if (answer.ok || answer.status !== tooManyRequests) return false;
    const seconds = answer.retryAfterSeconds ?? settingsOf(this.env).cloudflareApi.windowSeconds;
    this.#budget.block(Date.now() + seconds * 1000);
    log.error("Cloudflare's API refused a call for its rate limit: no call until Retry-After (is the token used elsewhere too?)", { retryAfterSeconds: seconds });
    return true;
  }

  #zone(): ZoneApiOptions {
    return { zoneId: this.env.CLOUDFLARE_ZONE_ID ?? '', apiToken: this.env.CLOUDFLARE_API_TOKEN ?? '', fetch: this.send };
  }
}
