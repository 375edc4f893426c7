import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import type { SiteAnalytics, SiteInfo, TopList, TrafficReport } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import { analyticsPath, apiTimestamp, errorRatesText, spanMs } from '../../src/common/traffic-view.ts';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { formatTimestamp, printJson, table } from '../format.ts';
import { sparkline } from '../sparkline.ts';

/** Entries of each top list shown; `--json` has all the service kept. */
const shownEntries = 10;

/** `--since`: a span back from now (`24h`, `7d`), else a date or timestamp the service reads (`2026-11-01`). */
function fromOf(since: string): string {
  const span = spanMs(since);
  if (span !== undefined) return apiTimestamp(new Date(Date.now() - span));
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+)?$/.test(since.trim())) return since.trim();
  throw new CliError('usage', `--since takes hours or days back from now (24h, 7d) or a UTC date or time (2026-11-01, 2026-11-01T10:00:00), not "${since}".`);
}

/** A top list's first entries under its header, and what the caps counted without a value as `(other)`; one line when empty. */
function topTable(header: string, unit: string, list: TopList, none: string): string {
  if (list.entries.length === 0 && list.other === 0) return pc.dim(none);
  const rows = list.entries.slice(0, shownEntries).map((entry) => [terminalSafe(entry.value), String(entry.count)]);
  if (list.other > 0) rows.push([pc.dim('(other)'), String(list.other)]);
  return table([header, unit], rows);
}

/** Totals in one row, and the requests over the range as a sparkline with its peak. */
function summary(report: TrafficReport, interval: SiteAnalytics['interval']): string {
  const { totals, bots } = report;
  const row = [totals.requests, totals.pageViews, totals.visitors, formatBytes(totals.bytes), totals.status4xx, totals.status5xx, bots.requests].map(String);
  const peak = report.series.reduce((top, point) => (point.requests > top.requests ? point : top), report.series[0] ?? { requests: 0, start: '' });
  const peakText = peak.requests > 0 ? `peak ${peak.requests} in the ${interval} from ${formatTimestamp(peak.start)}` : 'none';
  return [
    table(['REQUESTS', 'PAGE VIEWS', 'VISITORS', 'SENT', '4XX', '5XX', 'BOTS'], [row]),
    `${sparkline(report.series.map((point) => point.requests))}  ${pc.dim(`requests by ${interval} (${peakText})`)}`,
  ].join('\n');
}

/** The live deployment's broken links and error rates against the one live before it. */
function liveDeployment(analytics: SiteAnalytics, liveId: string | undefined): string {
  if (liveId === undefined) return pc.dim('Nothing is live.');
  const traffic = analytics.deployments.find((deployment) => deployment.deploymentId === liveId);
  const title = `${pc.bold('Live deployment')} ${terminalSafe(liveId)}`;
  if (!traffic) return `${title}: ${pc.dim('no traffic in this range.')}`;
  const since = traffic.liveFrom ? ` (live since ${formatTimestamp(traffic.liveFrom)})` : '';
  const previous = traffic.previous ? `; before it: ${terminalSafe(traffic.previous.deploymentId)}` : '';
  const links = traffic.brokenLinks.slice(0, shownEntries).map((link) => [terminalSafe(link.path), String(link.count)]);
  return [
    `${title}${since}: ${errorRatesText(traffic)}${previous}`,
    links.length > 0 ? table(['BROKEN LINK', '404S'], links) : pc.dim('No broken links: no path the deployment before it served has answered 404 since.'),
  ].join('\n');
}

/**
 * `sitehost analytics <domain>`: the live host's traffic since `--since` (totals, a sparkline,
 * top pages, referrers and not-found paths), the live deployment's broken links, and the preview
 * and alias hosts' requests in one line; `--json` prints the service's answer.
 */
export async function showAnalytics(domain: string, options: { since: string; json?: boolean }): Promise<void> {
  const from = fromOf(options.since);
  const api = await connect();
  const analytics = await api.json<SiteAnalytics>(analyticsPath(domain, from));
  if (options.json) return printJson(analytics);
  const info = await api.json<SiteInfo>(sitePath(domain, '/info'));
  const { live } = analytics;
  console.log(
    [
      `${pc.bold(terminalSafe(analytics.domain))}: live traffic from ${formatTimestamp(analytics.from)} to ${formatTimestamp(analytics.to)}, by ${analytics.interval}`,
      summary(live, analytics.interval),
      '',
      topTable('TOP PAGE', 'VIEWS', live.top.pages, 'No page views.'),
      '',
      topTable('TOP REFERRER', 'REQUESTS', live.top.referrers, 'No referrers.'),
      '',
      topTable('NOT FOUND', '404S', live.top.notFound, 'No path answered 404.'),
      '',
      liveDeployment(analytics, info.deployment?.id),
      '',
      pc.dim(`Preview hosts: ${analytics.preview.totals.requests} requests; alias hosts: ${analytics.alias.totals.requests} requests. Bots are counted apart. All of it: --json.`),
    ].join('\n'),
  );
}
