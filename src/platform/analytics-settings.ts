/** Traffic analytics' settings (docs/analytics.md), parsed with the others by settings.ts. */
import { InvalidSetting, wholeNumber } from './setting-values.ts';

export interface AnalyticsVars {
  ANALYTICS?: unknown;
  ANALYTICS_FLUSH_SECONDS?: unknown;
  ANALYTICS_TIMED_SENDS?: unknown;
  ANALYTICS_VALUES_PER_SITE?: unknown;
  ANALYTICS_VALUES_TOTAL?: unknown;
  ANALYTICS_TOP_STORED?: unknown;
  ANALYTICS_HOURLY_RETENTION_DAYS?: unknown;
  ANALYTICS_DAILY_RETENTION_DAYS?: unknown;
}

export interface AnalyticsSettings {
  /** Whether served requests are counted (`on`); `off` serves without counting. */
  counting: boolean;
  /** Each isolate sends what it counted at most this often (sooner only when a batch nears a queue message's size). */
  flushSeconds: number;
  /**
   * Whether an isolate also sends when an interval ends with no request after it (a timer in the
   * `waitUntil` of the interval's first request); `off` leaves a quiet isolate's last counts for its
   * next request. Off only for tests that wait on a request's background work, which would wait
   * out the interval.
   */
  timedSends: boolean;
  /** Distinct values of one top list (pages, referrers, countries, not-found paths) one site holds in an isolate between sends; more count as "other". */
  valuesPerSite: number;
  /** Distinct top-list values an isolate holds across all sites between sends; more count as "other". */
  valuesTotal: number;
  /** Entries of each top list kept per stored hour and day; the rest is kept as "other". */
  topStored: number;
  /** Days hourly buckets are kept, and the longest range `interval=hour` reads. */
  hourlyRetentionDays: number;
  /** Days daily buckets are kept, and the longest range `interval=day` reads. */
  dailyRetentionDays: number;
}

export function analyticsSettings(vars: AnalyticsVars): AnalyticsSettings {
  const switched = vars.ANALYTICS ?? 'on';
  if (switched !== 'on' && switched !== 'off') throw new InvalidSetting('ANALYTICS', switched, '"on" or "off"');
  const timed = vars.ANALYTICS_TIMED_SENDS ?? 'on';
  if (timed !== 'on' && timed !== 'off') throw new InvalidSetting('ANALYTICS_TIMED_SENDS', timed, '"on" or "off"');
  const hourlyRetentionDays = wholeNumber(vars, 'ANALYTICS_HOURLY_RETENTION_DAYS', 1);
  const dailyRetentionDays = wholeNumber(vars, 'ANALYTICS_DAILY_RETENTION_DAYS', 1);
  if (dailyRetentionDays < hourlyRetentionDays) {
    throw new InvalidSetting('ANALYTICS_DAILY_RETENTION_DAYS', vars.ANALYTICS_DAILY_RETENTION_DAYS, `at least ANALYTICS_HOURLY_RETENTION_DAYS (${hourlyRetentionDays})`);
  }
  return {
    counting: switched === 'on',
    flushSeconds: wholeNumber(vars, 'ANALYTICS_FLUSH_SECONDS', 0),
    timedSends: timed === 'on',
    valuesPerSite: wholeNumber(vars, 'ANALYTICS_VALUES_PER_SITE', 1),
    valuesTotal: wholeNumber(vars, 'ANALYTICS_VALUES_TOTAL', 1),
    topStored: wholeNumber(vars, 'ANALYTICS_TOP_STORED', 1),
    hourlyRetentionDays,
    dailyRetentionDays,
  };
}
