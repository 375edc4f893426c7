/**
 * `?from=&to=&interval=` of `GET /v2/sites/<domain>/analytics`, read and bounded: instants in the
 * API's timestamp form or as dates, widened to whole intervals, and a range no longer than what
 * is kept for its interval (docs/api.md, "Analytics").
 */
import type { TrafficInterval } from '../common/api-types';
import { Problem } from '../http/problem';
import type { AnalyticsSettings } from '../platform/analytics-settings';
import type { TrafficRange } from '../traffic/traffic-reads';
import { dayMs, grains } from '../traffic/traffic-tables';

/** A range of up to this long defaults to hourly points. */
const hourlyByDefaultMs = 2 * dayMs;

/** `2026-11-29`, `2026-11-29T10:00`, `2026-11-29T10:00:00` or `2026-11-29T10:00:00.000`, read as UTC. */
function instantOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?$/.test(value) ? Date.parse(value.includes('T') ? `${value}Z` : `${value}T00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw new Problem('invalid-request', `${name} must be a UTC timestamp as in "modified" (2026-11-29T10:00:00) or a date (2026-11-29), not ${JSON.stringify(value)}.`);
  return ms;
}

export function trafficRangeOf(query: (name: string) => string | undefined, settings: AnalyticsSettings, now: number): TrafficRange {
  const asked = query('interval');
  if (asked !== undefined && asked !== 'hour' && asked !== 'day') {
    throw new Problem('invalid-request', `interval must be "hour" or "day", not ${JSON.stringify(asked)}.`);
  }
  const askedTo = instantOf('to', query('to'));
  const askedFrom = instantOf('from', query('from'));
  const interval: TrafficInterval = asked ?? (askedFrom !== undefined && (askedTo ?? now) - askedFrom > hourlyByDefaultMs ? 'day' : 'hour');
  const { ms } = grains[interval];
  const to = Math.ceil((askedTo ?? now) / ms) * ms;
  const from = askedFrom ?? to - (interval === 'hour' ? dayMs : 7 * dayMs);
  if (from >= to) throw new Problem('invalid-request', `from (${new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()}).`);
  const range = { from: from - (from % ms), to, interval, topStored: settings.topStored };
  const [days, setting] = interval === 'hour' ? [settings.hourlyRetentionDays, 'ANALYTICS_HOURLY_RETENTION_DAYS'] : [settings.dailyRetentionDays, 'ANALYTICS_DAILY_RETENTION_DAYS'];
  if (range.to - range.from > days * dayMs) {
    throw new Problem('invalid-request', `A range read by ${interval} spans at most ${days} days (${setting}): what is kept.`, { extensions: { limit: setting, value: days } });
  }
  return range;
}
