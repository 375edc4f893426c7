import type { DeploymentTraffic, SiteAnalytics, TopList, TrafficInterval, TrafficReport } from '../../src/common/api-types';
import { formatBytes } from '../../src/common/format-bytes';
import { analyticsPath, apiTimestamp, errorRatesText, spanMs } from '../../src/common/traffic-view';
import { request } from './api';
import { type Child, fill, h } from './dom';
import { timeElement } from './format';
import { errorMessage } from './screen';
import { trafficChart } from './traffic-chart';

/** The ranges offered, back from now, each with the interval it is read by unless another is chosen. */
const ranges = [
  { value: '24h', label: '24 hours', interval: 'hour' },
  { value: '7d', label: '7 days', interval: 'day' },
  { value: '30d', label: '30 days', interval: 'day' },
] as const;
const intervals: readonly { value: TrafficInterval; label: string }[] = [
  { value: 'hour', label: 'By hour' },
  { value: 'day', label: 'By day' },
];

/** Radio buttons in a fieldset; `onChange` is told the chosen value. */
function choices(legend: string, name: string, options: readonly { value: string; label: string }[], chosen: string, onChange: (value: string) => void): HTMLFieldSetElement {
  return h(
    'fieldset',
    { class: 'choices' },
    h('legend', {}, legend),
    options.map((option) =>
      h(
        'label',
        {},
        h('input', { type: 'radio', name, value: option.value, checked: option.value === chosen, onchange: () => onChange(option.value) }),
        ` ${option.label}`,
      ),
    ),
  );
}

function totalsFacts(report: TrafficReport): HTMLElement {
  const { totals, bots } = report;
  const facts: [string, string][] = [
    ['Requests', String(totals.requests)],
    ['Page views', String(totals.pageViews)],
    ['Visitors', String(totals.visitors)],
    ['Sent', formatBytes(totals.bytes)],
    ['4xx / 5xx', `${totals.status4xx} / ${totals.status5xx}`],
    ['Bots (apart)', String(bots.requests)],
  ];
  return h('dl', { class: 'traffic-totals', id: 'traffic-totals' }, facts.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', { 'data-total': label }, value))));
}

/** The numbers the chart draws, as a table: what a screen reader reads of it. */
function seriesTable(report: TrafficReport, interval: TrafficInterval): HTMLElement {
  const header = [interval === 'hour' ? 'Hour from' : 'Day from', 'Requests', 'Page views', 'Visitors', 'Sent', '4xx', '5xx'];
  const rows = report.series.map((point) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, timeElement(point.start)),
      [point.requests, point.pageViews, point.visitors, formatBytes(point.bytes), point.status4xx, point.status5xx].map((value) => h('td', {}, value)),
    ),
  );
  return h(
    'details',
    {},
    h('summary', {}, 'The numbers'),
    h('table', { id: 'traffic-series' }, h('thead', {}, h('tr', {}, header.map((label) => h('th', { scope: 'col' }, label)))), h('tbody', {}, rows)),
  );
}

/** One top list as a table (its entries, then "Other" for what the caps counted without a value), or a line saying it is empty. */
function topTable(id: string, title: string, [what, unit]: [string, string], list: TopList): HTMLElement {
  const rows: Child[] = list.entries.map((entry) => h('tr', {}, h('th', { scope: 'row' }, entry.value), h('td', {}, entry.count)));
  if (list.other > 0) rows.push(h('tr', {}, h('th', { scope: 'row', class: 'hint' }, 'Other'), h('td', {}, list.other)));
  const body = rows.length > 0 ? h('table', { id }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, what), h('th', { scope: 'col' }, unit))), h('tbody', {}, rows)) : h('p', { id, class: 'hint' }, 'None in this range.');
  return h('section', { class: 'top-list', 'aria-label': title }, h('h3', {}, title), body);
}

/** Each deployment that served the live host in the range: its error rates against the one before, and the links its deploy broke. */
function deploymentsTable(deployments: readonly DeploymentTraffic[]): HTMLElement {
  if (deployments.length === 0) return h('p', { id: 'traffic-deployments', class: 'hint' }, 'No deployment served the live host in this range.');
  const rows = deployments.map((deployment) =>
    h(
      'tr',
      { 'data-deployment': deployment.deploymentId },
      h('th', { scope: 'row', 'data-label': 'Deployment' }, h('code', {}, deployment.deploymentId)),
      h('td', { 'data-label': 'Live from' }, timeElement(deployment.liveFrom)),
      h('td', { 'data-label': 'Requests' }, deployment.requests),
      h('td', { 'data-label': 'Errors' }, errorRatesText(deployment)),
      h(
        'td',
        { 'data-label': 'Broken links', class: 'broken-links' },
        deployment.brokenLinks.length === 0 ? 'None' : h('ul', { class: 'plain' }, deployment.brokenLinks.map((link) => h('li', {}, h('code', {}, link.path), ` (${link.count})`))),
      ),
    ),
  );
  const header = ['Deployment', 'Live from', 'Requests', 'Errors against the one before', 'Broken links'].map((label) => h('th', { scope: 'col' }, label));
  return h('table', { id: 'traffic-deployments', class: 'responsive' }, h('thead', {}, h('tr', {}, header)), h('tbody', {}, rows));
}

function render(analytics: SiteAnalytics, signal: AbortSignal): Child[] {
  const { live, preview, alias } = analytics;
  return [
    totalsFacts(live),
    h('figure', { class: 'traffic-figure' }, trafficChart(analytics, signal), h('figcaption', { class: 'hint' }, `Requests and visitors of the live host by ${analytics.interval}; dashed lines: deployments going live.`)),
    seriesTable(live, analytics.interval),
    h(
      'div',
      { class: 'columns top-lists' },
      topTable('traffic-pages', 'Top pages', ['Path', 'Views'], live.top.pages),
      topTable('traffic-referrers', 'Referrers', ['Host', 'Requests'], live.top.referrers),
      topTable('traffic-countries', 'Countries', ['Country', 'Requests'], live.top.countries),
      topTable('traffic-not-found', 'Not found', ['Path', '404s'], live.top.notFound),
    ),
    h('h3', {}, 'Deployments and the links they broke'),
    deploymentsTable(analytics.deployments),
    h('p', { id: 'traffic-others', class: 'hint' }, `Preview hosts: ${preview.totals.requests} requests. Alias hosts: ${alias.totals.requests} requests. Bots are counted apart from all of these.`),
  ];
}

/**
 * A site's Traffic section: the live host's totals, a chart of requests and visitors over the
 * chosen range (24 hours, 7 days or 30 days, by hour or by day) with deployments marked, the
 * numbers as a table, the top lists, and each deployment's broken links and error rates.
 */
export function trafficCard(domain: string, screenSignal: AbortSignal): HTMLElement {
  const content = h('div', { id: 'traffic', 'aria-busy': 'true', 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  let range: string = ranges[0].value;
  let interval: TrafficInterval = ranges[0].interval;
  let shown = new AbortController();
  let generation = 0;

  function load(): void {
    const mine = ++generation;
    content.setAttribute('aria-busy', 'true');
    const from = apiTimestamp(new Date(Date.now() - (spanMs(range) ?? 0)));
    request<SiteAnalytics>('GET', analyticsPath(domain, from, interval)).then(
      (analytics) => {
        if (mine !== generation || screenSignal.aborted) return;
        shown.abort();
        shown = new AbortController();
        content.removeAttribute('aria-busy');
        fill(content, render(analytics, AbortSignal.any([shown.signal, screenSignal])));
      },
      (error: unknown) => {
        if (mine !== generation) return;
        content.removeAttribute('aria-busy');
        fill(content, errorMessage(error));
      },
    );
  }

  const intervalChoices = () =>
    choices('By', 'traffic-interval', intervals, interval, (value) => {
      interval = value as TrafficInterval;
      load();
    });
  const intervalField = h('div', {}, intervalChoices());
  const rangeChoices = choices('Range', 'traffic-range', ranges, range, (value) => {
    range = value;
    interval = ranges.find((option) => option.value === value)?.interval ?? 'day';
    fill(intervalField, intervalChoices());
    load();
  });
  const refresh = h('button', { type: 'button', class: 'secondary small', onclick: load }, 'Refresh');

  load();
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'traffic-heading' },
    h('h2', { id: 'traffic-heading' }, 'Traffic'),
    h('p', { class: 'hint' }, 'Counted where the site is served: no cookie, no script, no address kept. New traffic shows within about 10 seconds.'),
    h('div', { class: 'traffic-controls' }, rangeChoices, intervalField, refresh),
    content,
  );
}
