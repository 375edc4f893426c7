/**
 * Counting on the serving path (docs/analytics.md): each answered request is added to the
 * isolate's tally in memory, with no I/O of its own. The tally is sent as one queue message (or a
 * few, when it outgrows one) with `waitUntil`, at most every `ANALYTICS_FLUSH_SECONDS`, sooner only
 * when it nears a message's size. Visitors are hashed with the day's secret in batches
 * (./pending-visitors.ts): when 512 wait, when the tally is sent, when the UTC day changes; only
 * each hash's sketch register is kept.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import type { AnalyticsSettings } from '../platform/analytics-settings';
import { settingsOf } from '../platform/settings';
import type { HostKind, SiteKey } from './batch';
import { isBotAgent } from './bot-verdicts';
import { PendingVisitors } from './pending-visitors';
import { Tally, sendSoonerBytes } from './tally';
import { dayNumberOf, heldSaltOf, saltOf } from './visitor-salt';

/** Whose request it was: the site, the kind of host, and the deployment that answered ('' for none). */
export interface CountedSite {
  site: SiteKey;
  host: HostKind;
  deployment: string;
}

/** What a response sent, as the serving code knows it: the body's bytes as the Worker hands them over. */
export interface Answered {
  response: Response;
  bytes: number;
}

/** Longer paths and referring hosts are cut to this many characters in top lists. */
const maxValueLength = 200;
/**
 * Visitors hashed in one loop. The more at once, the less each costs serving: in CPU profiles of a
 * counting isolate under load, hashing took about 1.7 % of its busy time 64 at a time and 0.4 to
 * 0.6 % 512 at a time (4 % one request at a time).
 */
const visitorBatch = 512;
/** Visitors that may wait for the day's secret (about 150 KB of addresses and user agents); past them a visitor is not counted. */
const maxWaitingVisitors = 1_024;

let tally: Tally | undefined;
const pending = new PendingVisitors(maxWaitingVisitors);
let lastSent = Date.now();
/** The send waiting for the interval's end, if one is: a send before it makes it moot. */
let pendingSend: symbol | null = null;

function tallyOf(settings: AnalyticsSettings): Tally {
  tally ??= new Tally({ valuesPerSite: settings.valuesPerSite, valuesTotal: settings.valuesTotal });
  return tally;
}

/** Counts one answered request of `counted` (nothing when counting is off), and sends the tally when it is due. Never throws: counting must not fail an answer. */
export function countServed(env: Env, ctx: ExecutionContext, request: Request, url: URL, counted: CountedSite, answered: Answered): void {
  try {
    count(env, ctx, request, url, counted, answered);
  } catch (error) {
    log.error('A request was not counted', { error });
  }
}

function count(env: Env, ctx: ExecutionContext, request: Request, url: URL, counted: CountedSite, answered: Answered): void {
  const settings = settingsOf(env).analytics;
  if (!settings.counting) return;
  const now = Date.now();
  // Each read of a request's or response's property crosses into the runtime: once each.
  const { headers, method } = request;
  const { response } = answered;
  const { status } = response;
  const userAgent = headers.get('user-agent') ?? '';
  const bot = isBotAgent(userAgent);
  const into = tallyOf(settings);
  into.count({
    site: counted.site,
    host: counted.host,
    deployment: counted.deployment,
    at: now,
    status,
    bytes: method === 'HEAD' ? 0 : answered.bytes,
    pageView: method === 'GET' && status === 200 && (response.headers.get('content-type') ?? '').startsWith('text/html'),
    bot,
    path: url.pathname.slice(0, maxValueLength),
    referrer: referringHost(headers, url),
    country: countryOf(request, headers),
  });
  if (!bot) {
    const day = dayNumberOf(now);
    // Yesterday's visitors, hashed with yesterday's secret before the isolate asks for today's.
    if (pending.size > 0 && pending.day !== day) hashYesterdays(into);
    // Asked now (and again each minute) though used later: by the batch's end the isolate has it.
    const salt = saltOf(env, now, ctx);
    if (!pending.add(day, counted.site, counted.host, now, headers.get('cf-connecting-ip') ?? '', userAgent)) notCounted();
    if (pending.size >= visitorBatch && salt) pending.hashInto(into, salt);
  }
  const flushMs = settings.flushSeconds * 1000;
  if (now - lastSent >= flushMs || into.approximateBytes >= sendSoonerBytes) {
    ctx.waitUntil(sendCounted(env, now));
  } else if (settings.timedSends && pendingSend === null) {
    // Without a later request in this isolate, a quiet site's last counts would wait in memory for
    // good (and go with the isolate): send them when the interval ends, while this request's
    // `waitUntil` keeps the isolate (a Worker may go on up to 30 s after its answer).
    const mine = Symbol('send');
    pendingSend = mine;
    ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, lastSent + flushMs - now)).then(() => (pendingSend === mine ? sendCounted(env) : undefined)));
  }
}

/** Sends what this isolate counted (tests call it to end the interval at once). */
export async function sendCounted(env: Env, now = Date.now()): Promise<void> {
  lastSent = now;
  pendingSend = null;
  if (!tally) return;
  // Its visitors go with this send, unless the isolate is still asking for their day's secret.
  const salt = heldSaltOf(pending.day);
  if (salt) pending.hashInto(tally, salt);
  if (tally.empty) return;
  const batches = tally.take(() => crypto.randomUUID());
  try {
    await env.TRAFFIC.sendBatch(batches.map((body) => ({ body, contentType: 'json' })));
  } catch (error) {
    // What this isolate counted in the interval is lost, as on eviction; serving goes on.
    log.error('Counted traffic was not sent', { error, batches: batches.length });
  }
}

/** Hashes the visitors of an earlier day into `into` with their day's secret; drops them uncounted when the isolate never got it. */
function hashYesterdays(into: Tally): void {
  const salt = heldSaltOf(pending.day);
  if (salt) return pending.hashInto(into, salt);
  const visitors = pending.size;
  pending.clear();
  log.warn("Visitors were not counted: their day's secret was not to be had", { visitors });
}

let warnedFull = false;

/** A visitor dropped, the waiting ones too many: the day's secret has been asked for that long. Said once per isolate. */
function notCounted(): void {
  if (warnedFull) return;
  warnedFull = true;
  log.warn("Visitors are not counted: too many wait for the day's secret", { waiting: maxWaitingVisitors });
}

/** The `Referer`'s host, unless it is the host that was asked (a site's own links are no referrals). */
function referringHost(headers: Headers, url: URL): string | null {
  const referer = headers.get('referer');
  if (!referer) return null;
  // A page of the same origin, the most common referrer, needs no parsing.
  const { origin } = url;
  if (referer.startsWith(origin) && referer[origin.length] === '/') return null;
  const host = URL.parse(referer)?.hostname;
  return host && host !== url.hostname ? host.slice(0, maxValueLength) : null;
}

/** The client's country: Cloudflare's `request.cf.country`, else its `CF-IPCountry` header. */
function countryOf(request: Request, headers: Headers): string | null {
  const { cf } = request as { cf?: { country?: unknown } };
  const country = typeof cf?.country === 'string' ? cf.country : headers.get('cf-ipcountry');
  return country && /^[A-Z0-9]{2}$/.test(country) ? country : null;
}
