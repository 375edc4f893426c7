/**
 * The room edge/ owns what the edge caches of a site and how it stays fresh: the cache keys and
 * purges (./edge-cache.ts) and the live record (this file), read by src/serving/ too. It imports
 * no other room, only the coordinator's client at the top (../coordinator-client.ts) to ask on a
 * miss, and writes nothing to D1.
 *
 * Serving freshness, both halves: how a site's live record reaches the locations that serve it,
 * and why a change is visible on the very next request in every one of them (docs/serving.md).
 *
 * Each location keeps the record in its own cache (./edge-cache.ts), read on every request; a
 * miss asks the domain's coordinator. A change purges the record from every location once no
 * answer sent before the change can still be stored (`storeWindowMs`), and only then answers
 * its request.
 */
import { parseDomain } from '../../platform/domain-name';
import type { Env } from '../../platform/env';
import type { PurgeState } from '../../cloudflare-api/account';
import { log } from '../../platform/log';
import { settingsOf } from '../../platform/settings';
import type { SiteRecord } from '../../storage/sites-table';
import { siteCoordinator } from '../coordinator-client';
import { edgeKeys, liveRecordMaxAgeSeconds, purgeEverywhere } from './edge-cache';

/** The coordinator's answer: the live record under a version, new with every change. */
export interface LiveSite {
  version: string;
  site: SiteRecord | null;
}

/**
 * A location stores the coordinator's answer only if it arrived within this long, counted by
 * its own clock from before it asked. So no answer sent before a change is stored later than
 * this after the change went live in the coordinator.
 */
export const storeWindowMs = 500;
/**
 * Added by the coordinator before its purge: clocks that run at slightly different
 * rates (Workers' clocks advance with I/O only, which makes a location's window end earlier,
 * never later) and the local cache write that follows a location's check.
 */
const clockAllowanceMs = 100;
/**
 * How long an isolate serves a record it read (from its location's cache, or its coordinator)
 * from memory before it reads the cache again: a busy isolate reads the cache a few dozen times a
 * second rather than on every request. A change that may have been read in the last minute waits
 * this long (and the allowance) after its purge before it answers, so no memory holds it then.
 */
export const memoryHoldMs = 50;
/** Stored while a change's purge is unfinished, so that a restarted coordinator makes it. */
const purgePendingKey = 'purge-pending';
/** Stored: no answer was sent after this time, for a restarted coordinator (which cannot know when its predecessor answered). */
const answerHorizonKey = 'answer-horizon';
/** How far past an answer the stored horizon is pushed: one storage write per this long while a site is served. */
const answerHorizonStepMs = 5_000;

/** The coordinator's half: its domain's live record, and the purges that make a change live everywhere. */
export class LiveRecord {
  /** Undefined until loaded. Every change passes through the coordinator, so it never goes stale. */
  #site: SiteRecord | null | undefined;
  /** Renewed with every change, and random so that a restarted coordinator never reuses one. */
  #version = crypto.randomUUID();
  /** When this object last answered a location; undefined before its first answer. */
  #lastAnswer: number | undefined;
  /** No answer was sent after this time: stored, so that it holds for a restarted coordinator too. */
  #answerHorizon: number;
  /** The purge of the change under way was not accepted within the wait. */
  #purgePending = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly envOf: () => Env,
  ) {
    this.#answerHorizon = storage.kv.get<number>(answerHorizonKey) ?? 0;
  }

  /** The record, or undefined before it was loaded. */
  get site(): SiteRecord | null | undefined {
    return this.#site;
  }

  /** Keeps the record as read from D1, when nothing is loaded yet. */
  load(site: SiteRecord | null): void {
    this.#site ??= site;
  }

  /** What a location asks on a miss: the loaded record and its version. */
  answer(): LiveSite {
    const now = Date.now();
    this.#lastAnswer = now;
    if (now > this.#answerHorizon) {
      this.#answerHorizon = now + answerHorizonStepMs;
      // The output gate holds the answer until this is stored.
      this.storage.kv.put(answerHorizonKey, this.#answerHorizon);
    }
    return { version: this.#version, site: this.#site ?? null };
  }

  /**
   * Makes `site` the live record of `domain` and waits until it is live in every location: the
   * old one is purged once every answer sent before this moment is past its store window. One
   * purge, not one at once and one after the window: a location that refilled in between would
   * be purged twice and ask twice per change.
   */
  async replace(domain: string, site: SiteRecord | null): Promise<void> {
    this.storage.kv.put(purgePendingKey, domain);
    const lastAnswer = this.#lastAnswer ?? this.#answerHorizon;
    this.#site = site;
    this.#version = crypto.randomUUID();
    await this.#purgeAfterWindow(domain, lastAnswer);
  }

  /** Makes the purge of a change a stopped coordinator left unfinished. */
  async resumePurge(): Promise<void> {
    const domain = this.storage.kv.get<string>(purgePendingKey);
    if (domain !== undefined) await this.#purgeAfterWindow(domain, this.#lastAnswer ?? this.#answerHorizon);
  }

  /**
   * Purges once every answer sent up to `lastAnswer` (the last one that can carry the replaced
   * record) is past its store window, then lets the isolates' memory of it run out. A site no
   * location asked about lately is purged at once; one asked about in no cache's lifetime (a
   * minute) holds no memory to wait for either. A purge Cloudflare has not accepted within
   * `EDGE_PURGE_WAIT_MS` is left to the account, which keeps it until it is; one that could not be
   * handed over stays stored here, and the alarm (../commit/commits.ts) hands it over again. Either way
   * the change answers with its purge pending, and the record's max-age bounds how long a location
   * serves the one it replaced.
   */
  async #purgeAfterWindow(domain: string, lastAnswer: number): Promise<void> {
    // Workers' clocks advance with I/O only, so Date.now() may lag and make these waits longer, never shorter.
    const wait = lastAnswer + storeWindowMs + clockAllowanceMs - Date.now();
    if (wait > 0) await scheduler.wait(wait);
    const { edge } = settingsOf(this.envOf());
    let state: PurgeState;
    try {
      state = await purgeEverywhere(this.envOf(), [edgeKeys.live(edge, domain)], edge.purgeWaitMs);
    } catch (error) {
      log.error('A live record could not be handed over for purging; the alarm tries again', { domain, error });
      this.#purgePending = true;
      return;
    }
    if (state === 'pending') this.#purgePending = true;
    else if (Date.now() - lastAnswer < liveRecordMaxAgeSeconds * 1000 + storeWindowMs) await scheduler.wait(memoryHoldMs + clockAllowanceMs);
    this.storage.kv.delete(purgePendingKey);
  }

  /** When the alarm must hand over a purge that could not be: now (the alarm then waits its retry delay), or never. */
  nextDue(): number | undefined {
    return this.storage.kv.get(purgePendingKey) === undefined ? undefined : Date.now();
  }

  /** Starts a change: whether its purge is left pending is known once it ends (`purgePending`). */
  beginChange(): void {
    this.#purgePending = false;
  }

  /** Whether the purge of the change under way is not accepted yet: its answer says so. */
  get purgePending(): boolean {
    return this.#purgePending;
  }
}

/** The isolate's half: parsed records by version, so a cache hit on an unchanged record costs no parsing or compiling. */
const parsed = new Map<string, LiveSite>();
const maxParsed = 10_000;
/** Records this isolate read lately from a location's cache, by domain, each until `memoryHoldMs` after its reading began. */
const held = new WeakMap<Cache, Map<string, { live: LiveSite; until: number }>>();
const maxHeld = 10_000;

function heldIn(location: Cache): Map<string, { live: LiveSite; until: number }> {
  let records = held.get(location);
  if (!records) {
    records = new Map();
    held.set(location, records);
  }
  return records;
}

function hold(location: Cache, domain: string, live: LiveSite, readAt: number): LiveSite {
  const records = heldIn(location);
  records.delete(domain);
  records.set(domain, { live, until: readAt + memoryHoldMs });
  if (records.size > maxHeld) records.delete(records.keys().next().value!);
  return live;
}
/** Coordinator questions in flight in this isolate, by domain: concurrent misses share one. */
const asking = new Map<string, { asked: number; answer: Promise<LiveSite> }>();
const versionHeader = 'x-live-version';

/**
 * The site's live record, from the location's cache; on a miss, from its coordinator, stored
 * in the cache when the answer came within the store window. None for a Host that cannot be a
 * site (no object is created for it).
 */
export async function liveSite(env: Env, ctx: ExecutionContext, domain: string, location: Cache): Promise<SiteRecord | null> {
  // A request's clock reads its arrival (Workers' clocks advance with I/O), so a hold never outlasts memoryHoldMs.
  const readAt = Date.now();
  const memory = heldIn(location).get(domain);
  if (memory && readAt < memory.until) return memory.live.site;
  const key = edgeKeys.live(settingsOf(env).edge, domain);
  const cached = await location.match(key);
  if (cached) return hold(location, domain, await recordOf(cached), readAt).site;
  if (!isSiteDomain(domain)) return null;
  const missed = Date.now();
  const inFlight = asking.get(domain);
  // Joined only when asked within a store window of this miss: an older question may have been answered before a change this request follows.
  if (inFlight && missed - inFlight.asked <= storeWindowMs) return (await inFlight.answer).site;
  const answer = askAndStore(env, domain, key, location);
  const question = { asked: missed, answer };
  asking.set(domain, question);
  // Kept alive for the requests that joined it, should this one end first.
  ctx.waitUntil(answer.catch(() => undefined).finally(() => asking.get(domain) === question && asking.delete(domain)));
  return (await answer).site;
}

async function askAndStore(env: Env, domain: string, key: string, location: Cache): Promise<LiveSite> {
  // Read before asking: the store window counts from when the question left, which is no earlier than this.
  const asked = Date.now();
  const live = await siteCoordinator(env, domain).current(domain, true);
  if (Date.now() - asked <= storeWindowMs) {
    remember(live);
    const response = new Response(JSON.stringify(live), {
      headers: { 'content-type': 'application/json', 'cache-control': `max-age=${liveRecordMaxAgeSeconds}`, [versionHeader]: live.version },
    });
    await location.put(key, response);
    // A write that ended past the window may have landed after the change's purge: taken back.
    if (Date.now() - asked > storeWindowMs) await location.delete(key);
  }
  return live;
}

async function recordOf(cached: Response): Promise<LiveSite> {
  const known = parsed.get(cached.headers.get(versionHeader) ?? '');
  if (known) {
    await cached.body?.cancel();
    return known;
  }
  const live = await cached.json<LiveSite>();
  remember(live);
  return live;
}

function remember(live: LiveSite): void {
  parsed.delete(live.version);
  parsed.set(live.version, live);
  if (parsed.size > maxParsed) parsed.delete(parsed.keys().next().value!);
}

function isSiteDomain(domain: string): boolean {
  try {
    return parseDomain(domain, []) === domain;
  } catch {
    return false;
  }
}
