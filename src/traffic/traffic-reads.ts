/**
 * Reading a site's stored traffic over a range (./traffic-tables.ts): a report per host kind and
 * the live traffic per deployment. Series come from the interval's own buckets; top lists from
 * daily buckets for the whole days of the range and hourly ones at its edges, so that a month
 * read hourly sums 31 days' lists, not 744 hours'.
 */
import type { BotTraffic, TopEntry, TopList, TrafficCounts, TrafficPoint, TrafficReport, TrafficTops } from '../common/api-types';
import { timestamp } from '../http/time';
import { type HostKind, counters, hostKinds, topLists } from './batch';
import { estimate, mergeRegisters } from './sketch';
import { type Grain, dayMs, grains } from './traffic-tables';

export interface TrafficRange {
  /** Aligned to `interval`: `from` inclusive, `to` exclusive. */
  from: number;
  to: number;
  interval: Grain;
  /** Entries of each top list answered. */
  topStored: number;
}

/** One deployment's live traffic, before the API adds what its site's deployments say of it. */
export interface StoredDeploymentTraffic {
  deploymentId: string;
  counts: Record<(typeof counters)[number], number>;
  notFound: TopEntry[];
}

export interface StoredTraffic {
  reports: Record<HostKind, TrafficReport>;
  deployments: StoredDeploymentTraffic[];
}

const sums = counters.map((_, i) => `SUM(c${i}) AS c${i}`).join(', ');
type CountRow = Record<`c${number}`, number>;

export function readTraffic(sql: SqlStorage, range: TrafficRange): StoredTraffic {
  const reports = emptyReports(range);
  const { table, ms } = grains[range.interval];
  for (const row of sql.exec<CountRow & { start: number; host: HostKind }>(`SELECT start, host, ${sums} FROM ${table}_counts WHERE start >= ? AND start < ? GROUP BY start, host`, range.from, range.to)) {
    const report = reports[row.host];
    if (!report) continue;
    const point = report.series[(row.start - range.from) / ms]!;
    addRow(point, report.totals, report.bots, row);
  }
  for (const row of sql.exec<{ start: number; host: HostKind; visitors: number }>(`SELECT start, host, visitors FROM ${table}_visitors WHERE start >= ? AND start < ?`, range.from, range.to)) {
    const point = reports[row.host]?.series[(row.start - range.from) / ms];
    if (point) point.visitors = row.visitors;
  }
  for (const host of hostKinds) reports[host].totals.visitors = visitorsOver(sql, host, range, reports[host].series);
  const tops = topRows(sql, range, 'host, list, value', '');
  for (const host of hostKinds) {
    const top = reports[host].top;
    topLists.forEach((name, list) => (top[name] = topListOf(tops.get(`${host} ${list}`), range.topStored)));
  }
  return { reports, deployments: deploymentsOver(sql, range) };
}

/** A report per host kind with nothing counted: every point of the series at zero. */
export function emptyReports(range: TrafficRange): Record<HostKind, TrafficReport> {
  const { ms } = grains[range.interval];
  const starts: string[] = [];
  for (let start = range.from; start < range.to; start += ms) starts.push(timestamp(start));
  return Object.fromEntries(hostKinds.map((host) => [host, emptyReport(starts)])) as Record<HostKind, TrafficReport>;
}

function emptyCounts(): TrafficCounts {
  return { requests: 0, pageViews: 0, visitors: 0, bytes: 0, status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 0 };
}

function emptyReport(starts: readonly string[]): TrafficReport {
  const series: TrafficPoint[] = starts.map((start) => ({ start, ...emptyCounts() }));
  const empty: TopList = { entries: [], other: 0 };
  const top: TrafficTops = { pages: empty, referrers: empty, countries: empty, notFound: empty };
  return { totals: emptyCounts(), series, top, bots: { requests: 0, pageViews: 0, bytes: 0 } };
}

function addRow(point: TrafficCounts, totals: TrafficCounts, bots: BotTraffic, row: CountRow): void {
  const human = ['requests', 'pageViews', 'bytes', 'status2xx', 'status3xx', 'status4xx', 'status5xx'] as const;
  human.forEach((name, i) => {
    point[name] += row[`c${i}`] ?? 0;
    totals[name] += row[`c${i}`] ?? 0;
  });
  bots.requests += row.c7 ?? 0;
  bots.pageViews += row.c8 ?? 0;
  bots.bytes += row.c9 ?? 0;
}

/**
 * Visitors over the range: each UTC day's estimate, summed (a visitor is one per day). A day the
 * range holds whole is read from its fine sketch; a part of a day, from its hours' coarse ones.
 */
function visitorsOver(sql: SqlStorage, host: HostKind, range: TrafficRange, series: TrafficPoint[]): number {
  if (range.interval === 'day') return series.reduce((sum, point) => sum + point.visitors, 0);
  let total = 0;
  const partDays = new Map<number, Uint8Array>();
  for (const [grain, from, to] of segmentsOf(range)) {
    if (grain === 'day') {
      total += sql.exec<{ visitors: number | null }>('SELECT SUM(visitors) AS visitors FROM day_visitors WHERE host = ? AND start >= ? AND start < ?', host, from, to).one().visitors ?? 0;
      continue;
    }
    const rows = sql.exec<{ start: number; registers: ArrayBuffer }>('SELECT start, registers FROM hour_visitors WHERE host = ? AND start >= ? AND start < ?', host, from, to);
    for (const row of rows) {
      const registers = new Uint8Array(row.registers);
      const day = row.start - (row.start % dayMs);
      const union = partDays.get(day);
      if (union) mergeRegisters(union, registers);
      else partDays.set(day, registers);
    }
  }
  for (const union of partDays.values()) total += estimate(union);
  return total;
}

/** The segments of the range whose top lists and visitor totals are read, each from the buckets of one grain: whole days from daily ones. */
function segmentsOf(range: TrafficRange): [Grain, number, number][] {
  if (range.interval === 'day') return [['day', range.from, range.to]];
  const firstDay = Math.ceil(range.from / dayMs) * dayMs;
  const lastDay = Math.floor(range.to / dayMs) * dayMs;
  if (firstDay >= lastDay) return [['hour', range.from, range.to]];
  return [
    ['hour', range.from, firstDay],
    ['day', firstDay, lastDay],
    ['hour', lastDay, range.to],
  ];
}

/** Summed top-list counts over the range, grouped by `groups` (ending in `list, value`), keyed by the groups before `value`. */
function topRows(sql: SqlStorage, range: TrafficRange, groups: string, where: string): Map<string, Map<string, number>> {
  const keyed = new Map<string, Map<string, number>>();
  const keyColumns = groups.split(',').map((column) => column.trim()).slice(0, -1);
  for (const [grain, from, to] of segmentsOf(range)) {
    if (from >= to) continue;
    const rows = sql.exec<Record<string, string | number>>(`SELECT ${groups}, SUM(count) AS count FROM ${grains[grain].table}_tops WHERE start >= ? AND start < ? ${where} GROUP BY ${groups}`, from, to);
    for (const row of rows) {
      const key = keyColumns.map((column) => row[column]).join(' ');
      let values = keyed.get(key);
      if (!values) keyed.set(key, (values = new Map()));
      const value = String(row.value);
      values.set(value, (values.get(value) ?? 0) + Number(row.count));
    }
  }
  return keyed;
}

/** The `size` most counted values, most first; the rest and the stored "other" ('') as `other`. */
function topListOf(values: Map<string, number> | undefined, size: number): TopList {
  if (!values) return { entries: [], other: 0 };
  const sorted = [...values].filter(([value]) => value !== '').sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const other = (values.get('') ?? 0) + sorted.slice(size).reduce((sum, [, count]) => sum + count, 0);
  return { entries: sorted.slice(0, size).map(([value, count]) => ({ value, count })), other };
}

function deploymentsOver(sql: SqlStorage, range: TrafficRange): StoredDeploymentTraffic[] {
  const { table } = grains[range.interval];
  const notFound = topRows(sql, range, 'deployment, list, value', `AND host = 'live' AND list = ${topLists.indexOf('notFound')}`);
  const rows = sql.exec<CountRow & { deployment: string }>(`SELECT deployment, ${sums} FROM ${table}_counts WHERE start >= ? AND start < ? AND host = 'live' GROUP BY deployment`, range.from, range.to);
  return [...rows].map((row) => ({
    deploymentId: row.deployment,
    counts: Object.fromEntries(counters.map((name, i) => [name, row[`c${i}`] ?? 0])) as StoredDeploymentTraffic['counts'],
    notFound: topListOf(notFound.get(`${row.deployment} ${topLists.indexOf('notFound')}`), range.topStored).entries,
  }));
}
