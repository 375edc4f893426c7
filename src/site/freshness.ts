/**
 * Serving freshness, both halves: how a site's live record reaches the isolates that serve it,
 * and why a change is visible on the very next request from any of them.
 *
 * The coordinator (`LiveRecord`) holds the record in memory and answers with a lease: the
 * isolate may serve its kept copy for `siteLeaseMs`, counted from when it asked, without asking
 * again. A change stops granting leases, waits until the granted ones have run out, and only
 * then goes live and answers its request. The isolate (`liveSite`) serves its kept copy while
 * the lease lasts and renews a lease two thirds gone in the background, so a busy site's
 * requests never wait for the coordinator.
 */
import { parseDomain } from '../domain-name';
import type { Env } from '../env';
import { log } from '../log';
import { WeightedLru } from '../sites/lru';
import type { SiteRecord } from '../storage/sites';
import { siteCoordinator } from './client';

/** The live record's version, and the record itself unless the caller already holds that version. */
export interface LiveSite {
  version: string;
  site?: SiteRecord | null;
  /**
   * The lease: how long, counted from when the caller sent its question, it may serve this
   * version without asking again. No change goes live, nor is its request answered, before
   * every lease granted on the version it replaces has run out. 0 while a change waits.
   */
  leaseMs: number;
}

/** A lease: how long an isolate may serve the record it was sent without asking again. */
export const siteLeaseMs = 450;
/**
 * Counted on top of each lease by the coordinator, in case its clock lags (Workers' clocks
 * advance with I/O only): the caller's lease surely ends before the one counted there.
 * A change waits at most `siteLeaseMs + clockLagAllowanceMs` for the leases out.
 */
const clockLagAllowanceMs = 50;
/** Stored: a time no lease granted runs past, for a coordinator that restarts. */
const leaseHorizonKey = 'lease-horizon';
/** How far past a lease the stored horizon is pushed: one storage write per this long while a site is served. */
const leaseHorizonStepMs = 5_000;
/** The share of a lease after which a request renews it in the background. */
export const renewAfterShare = 2 / 3;

/** The coordinator's half: its domain's live record, under a version, and the leases granted on it. */
export class LiveRecord {
  /** Undefined until loaded. Every change passes through the coordinator, so it never goes stale. */
  #site: SiteRecord | null | undefined;
  /** Renewed with every change, and random so that a restarted coordinator never reuses one. */
  #version = crypto.randomUUID();
  /** No lease granted runs past this time; stored, so that it holds for a restarted coordinator too. */
  #leaseHorizon: number;
  /** When the last lease granted on `#version` runs out, as far as the coordinator knows. */
  #leasedUntil: number;
  /** False while a change waits for the leases on the record it replaces to run out. */
  #leasing = true;

  constructor(private readonly storage: DurableObjectStorage) {
    this.#leaseHorizon = storage.kv.get<number>(leaseHorizonKey) ?? 0;
    this.#leasedUntil = this.#leaseHorizon;
  }

  /** The record, or undefined before it was loaded. */
  get site(): SiteRecord | null | undefined {
    return this.#site;
  }

  /** Keeps the record as read from D1, when nothing is loaded yet. */
  load(site: SiteRecord | null): void {
    this.#site ??= site;
  }

  /**
   * Answers an isolate that keeps `keptVersion`: the live version, the record only when that
   * version differs (the steady state clones no record), and a lease (none while a change waits).
   */
  answer(keptVersion: string | undefined): LiveSite {
    const leaseMs = this.#leasing ? this.#grantLease() : 0;
    return keptVersion === this.#version ? { version: this.#version, leaseMs } : { version: this.#version, site: this.#site ?? null, leaseMs };
  }

  /** Counts a lease from now, which is after the caller sent its question, and answers its length. */
  #grantLease(): number {
    const until = Date.now() + siteLeaseMs + clockLagAllowanceMs;
    this.#leasedUntil = Math.max(this.#leasedUntil, until);
    if (until > this.#leaseHorizon) {
      this.#leaseHorizon = until + leaseHorizonStepMs;
      // The output gate holds the answer until this is stored.
      this.storage.kv.put(leaseHorizonKey, this.#leaseHorizon);
    }
    return siteLeaseMs;
  }

  /**
   * Makes `site` the live record, under a new version, once no isolate may still serve the old
   * one: leases stop, the granted ones run out, and only then does it go live.
   */
  async replace(site: SiteRecord | null): Promise<void> {
    this.#leasing = false;
    // Workers' clocks advance with I/O only, so Date.now() may lag and make this wait longer, never shorter.
    const wait = this.#leasedUntil - Date.now();
    if (wait > 0) await scheduler.wait(wait);
    this.#site = site;
    this.#version = crypto.randomUUID();
    this.#leasing = true;
  }
}

/** The isolate's half: the live record of a site this isolate served lately, under its coordinator's version. */
interface KeptSite {
  version: string;
  site: SiteRecord | null;
  /** Until when (this isolate's clock) the coordinator's lease lets this copy be served without asking. */
  leasedUntil: number;
  /** From when a request renews the lease in the background. */
  renewFrom: number;
}

const keptSites = new WeightedLru<string, KeptSite>(10_000);
/** Domains whose lease a request is renewing in the background. */
const renewing = new Set<string>();

/**
 * The site's live record: the copy kept here while its lease lasts, else its coordinator's
 * answer, which renews the lease and carries the record only when it changed. A lease two
 * thirds gone is renewed after the response (`waitUntil`), one renewal at a time per domain.
 * None for a Host that cannot be a site (no object is created for it); a kept domain was
 * checked when it was first kept.
 */
export async function liveSite(env: Env, ctx: ExecutionContext, domain: string): Promise<SiteRecord | null> {
  const kept = keptSites.get(domain);
  const now = Date.now();
  if (kept && now < kept.leasedUntil) {
    if (now >= kept.renewFrom && !renewing.has(domain)) {
      renewing.add(domain);
      const renewal = askCoordinator(env, domain, kept)
        // A failed renewal leaves the lease to run out: the first request after it asks, and answers the error.
        .catch((error: unknown) => log.warn('Renewing a serving lease failed', { domain, error }))
        .finally(() => renewing.delete(domain));
      ctx.waitUntil(renewal);
    }
    return kept.site;
  }
  if (!kept && !isSiteDomain(domain)) return null;
  return askCoordinator(env, domain, kept);
}

/**
 * Asks the domain's coordinator for its live record and keeps the answer under its lease.
 * Any answer may be kept, even one overtaken by a newer: the coordinator lets no change go
 * live before every lease it granted has run out.
 */
async function askCoordinator(env: Env, domain: string, kept: KeptSite | undefined): Promise<SiteRecord | null> {
  // Read before asking: the lease counts from when the question left, which is no later than this.
  const asked = Date.now();
  const live = await siteCoordinator(env, domain).current(domain, { version: kept?.version });
  const site = live.site === undefined && kept ? kept.site : (live.site ?? null);
  keptSites.set(domain, {
    version: live.version,
    site,
    leasedUntil: asked + live.leaseMs,
    renewFrom: asked + live.leaseMs * renewAfterShare,
  });
  return site;
}

function isSiteDomain(domain: string): boolean {
  try {
    return parseDomain(domain, []) === domain;
  } catch {
    return false;
  }
}
