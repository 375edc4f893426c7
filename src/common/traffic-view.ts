// How the CLI (`sitehost analytics`) and the dashboard (the site page's Traffic section) ask for
// and describe a site's traffic (`GET /v2/sites/<domain>/analytics`, docs/api.md): the same
// ranges, the same rates, so both read alike. Imports only its siblings; erasable TypeScript only.
import type { DeploymentTraffic, ErrorRates, TrafficInterval } from './api-types.ts';
import { sitePath } from './site-paths.ts';

const hourMs = 3_600_000;

/** A span back from now, as `--since` and the dashboard's range buttons say it (`24h`, `7d`), in milliseconds; undefined if it is not one. */
export function spanMs(text: string): number | undefined {
  const match = /^(\d{1,5})([hd])$/.exec(text.trim());
  if (!match) return undefined;
  const hours = Number(match[1]) * (match[2] === 'd' ? 24 : 1);
  return hours > 0 ? hours * hourMs : undefined;
}

/** An instant in the API's timestamp form (`2026-11-29T10:00:00`, UTC, no zone designator). */
export function apiTimestamp(instant: Date): string {
  return instant.toISOString().slice(0, 19);
}

/**
 * The analytics of `domain` from `from` (an API timestamp or date) until now; the service picks
 * the interval (hours for up to 2 days, else days) unless `interval` is given.
 */
export function analyticsPath(domain: string, from: string, interval?: TrafficInterval): string {
  const query = new URLSearchParams({ from, ...(interval ? { interval } : {}) });
  return sitePath(domain, `/analytics?${query}`);
}

/** A share of requests (0 to 1) as a percentage: `1.74 %` below 1 %, `12.5 %` above; `-` with no request to share. */
export function formatRate(rate: number | null): string {
  if (rate === null) return '-';
  const percent = rate * 100;
  return `${percent.toFixed(percent > 0 && percent < 1 ? 2 : 1)} %`;
}

/** `4xx 1.74 % (before: 0.25 %)`: one error rate of a deployment against the deployment live before it. */
function rateAgainst(label: string, key: keyof ErrorRates, deployment: DeploymentTraffic): string {
  const before = deployment.previous ? ` (before: ${formatRate(deployment.previous[key])})` : '';
  return `${label} ${formatRate(deployment[key])}${before}`;
}

/** A deployment's 4xx and 5xx rates against the one live before it, in one line. */
export function errorRatesText(deployment: DeploymentTraffic): string {
  return `${rateAgainst('4xx', 'rate4xx', deployment)}, ${rateAgainst('5xx', 'rate5xx', deployment)}`;
}
