/**
 * `SiteTraffic`: one object per domain (`idFromName(domain)`) keeping its site's traffic, so that
 * no count is in the global D1 and the coordinator's lock is never taken for it. Its data belongs
 * to one claim of the domain: a batch of another claim (the domain was unpublished and claimed
 * again, and the consumer found the new claim current) replaces everything, and a read for any
 * claim but the stored one answers nothing. Unpublishing forgets it all (`forget`, a follow-up of
 * the unpublish); a daily alarm forgets buckets past their retention, and everything once D1
 * names another claim or none.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { settingsOf } from '../platform/settings';
import { currentClaims } from '../storage/site-claims';
import type { SiteKey, TallyEntry, VisitorEntry } from './batch';
import { type StoredTraffic, type TrafficRange, readTraffic } from './traffic-reads';
import { clearTables, createTables, dayMs, forgetOld, mergeBatch, storedClaim, wasMerged } from './traffic-tables';

export type MergeOutcome = 'merged' | 'duplicate';

export class SiteTraffic extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createTables(ctx.storage.sql);
  }

  /** Adds batch `batchId`'s counts of `site` (its current claim, as the consumer read it from D1), once. */
  async merge(site: SiteKey, batchId: string, entries: TallyEntry[], visitors: VisitorEntry[]): Promise<MergeOutcome> {
    const { sql } = this.ctx.storage;
    const { analytics } = settingsOf(this.env);
    const now = Date.now();
    const outcome = this.ctx.storage.transactionSync((): MergeOutcome => {
      const stored = storedClaim(sql);
      if (stored?.claim !== site.claim || stored.domain !== site.domain) clearTables(sql, site);
      else if (wasMerged(sql, batchId)) return 'duplicate';
      mergeBatch(sql, batchId, entries, visitors, analytics.topStored, now);
      return 'merged';
    });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + dayMs);
    return outcome;
  }

  /** `site`'s traffic over `range`; null when what is stored is another claim's, or nothing. */
  read(site: SiteKey, range: TrafficRange): StoredTraffic | null {
    const stored = storedClaim(this.ctx.storage.sql);
    if (stored?.claim !== site.claim || stored.domain !== site.domain) return null;
    return readTraffic(this.ctx.storage.sql, range);
  }

  /** Forgets `site`'s traffic (it was unpublished); another claim's, stored since, stays. */
  async forget(site?: SiteKey): Promise<void> {
    const stored = storedClaim(this.ctx.storage.sql);
    if (site && stored && stored.claim !== site.claim) return;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    createTables(this.ctx.storage.sql);
  }

  /** The bytes its storage takes (for operators, and bench:analytics's storage figure). */
  size(): number {
    return this.ctx.storage.sql.databaseSize;
  }

  /** Daily: buckets past their retention go; everything goes once the stored claim is no longer the domain's. */
  override async alarm(): Promise<void> {
    const stored = storedClaim(this.ctx.storage.sql);
    if (!stored) return this.forget();
    const current = (await currentClaims(this.env.DB, [stored.domain])).get(stored.domain);
    if (current !== stored.claim) return this.forget();
    const { analytics } = settingsOf(this.env);
    forgetOld(this.ctx.storage.sql, Date.now(), analytics.hourlyRetentionDays, analytics.dailyRetentionDays);
    await this.ctx.storage.setAlarm(Date.now() + dayMs);
  }
}

/** The traffic object of `domain`. */
export function siteTraffic(env: Env, domain: string): DurableObjectStub<SiteTraffic> {
  return env.SITE_TRAFFIC.get(env.SITE_TRAFFIC.idFromName(domain));
}
