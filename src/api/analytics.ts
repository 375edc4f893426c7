/**
 * `GET /v2/sites/<domain>/analytics` (docs/api.md, "Analytics"): what the site's `SiteTraffic`
 * object stored for its current claim, with what the site's kept deployments say of the live
 * traffic by deployment: which one was live before each, and the links each deploy broke.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireSiteRead } from '../auth/middleware';
import type { DeploymentTraffic, ErrorRates, SiteAnalytics } from '../common/api-types';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { settingsOf } from '../platform/settings';
import type { DeploymentRecord } from '../storage/deployments-table';
import { readFileIndex } from '../storage/file-index';
import { siteTraffic } from '../traffic/site-traffic';
import { type StoredDeploymentTraffic, type StoredTraffic, emptyReports } from '../traffic/traffic-reads';
import { trafficRangeOf } from './analytics-range';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const analytics = new Hono<AppEnv>();

/** Deployment records read to place each deployment after the one live before it. */
const deploymentsRead = 100;
/** Deployments whose broken links are looked for (each reads the file index of the one before it): the newest. */
const brokenLinksChecked = 5;

resource(analytics, '/v2/sites/:domain/analytics', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      const range = trafficRangeOf((name) => c.req.query(name), settingsOf(c.env).analytics, Date.now());
      const site = await readableSite(c, domain);
      const [stored, records] = await Promise.all([
        siteTraffic(c.env, domain).read({ domain, claim: site.created }, range),
        siteCoordinator(c.env, domain).deployments(domain, deploymentsRead),
      ]);
      const traffic: StoredTraffic = stored ?? { reports: emptyReports(range), deployments: [] };
      const body: SiteAnalytics = {
        domain,
        from: timestamp(range.from),
        to: timestamp(range.to),
        interval: range.interval,
        ...traffic.reports,
        deployments: await byDeployment(c.env.FILES, traffic.deployments, records, site.liveDeploymentId),
      };
      return c.json(body);
    },
  ],
});

function ratesOf(traffic: StoredDeploymentTraffic | undefined): ErrorRates {
  const requests = traffic?.counts.requests ?? 0;
  if (!traffic || requests === 0) return { rate4xx: null, rate5xx: null };
  return { rate4xx: traffic.counts.status4xx / requests, rate5xx: traffic.counts.status5xx / requests };
}

/** The live traffic by deployment, the last to go live first, each beside the deployment live before it. */
async function byDeployment(bucket: R2Bucket, traffic: StoredDeploymentTraffic[], records: DeploymentRecord[], liveId: string | null): Promise<DeploymentTraffic[]> {
  const byId = new Map(records.map((record) => [record.id, record]));
  const stored = new Map(traffic.map((entry) => [entry.deploymentId, entry]));
  // The deployments that were live, in the order they last went live: each one's predecessor is the one before it.
  const wereLive = records.filter((record) => record.liveUntil !== null || record.id === liveId).sort((a, b) => wentLive(a) - wentLive(b));
  const previousOf = (id: string) => {
    const index = wereLive.findIndex((record) => record.id === id);
    return index > 0 ? wereLive[index - 1] : undefined;
  };
  const wentLiveOf = (id: string) => {
    const record = byId.get(id);
    return record ? wentLive(record) : 0;
  };
  const ordered = traffic.filter((entry) => entry.deploymentId !== '').sort((a, b) => wentLiveOf(b.deploymentId) - wentLiveOf(a.deploymentId));
  return Promise.all(
    ordered.map(async (entry, position): Promise<DeploymentTraffic> => {
      const record = byId.get(entry.deploymentId);
      const previous = previousOf(entry.deploymentId);
      const { counts } = entry;
      return {
        deploymentId: entry.deploymentId,
        liveFrom: record ? timestamp(wentLive(record)) : null,
        requests: counts.requests,
        pageViews: counts.pageViews,
        bytes: counts.bytes,
        status4xx: counts.status4xx,
        status5xx: counts.status5xx,
        ...ratesOf(entry),
        previous: previous ? { deploymentId: previous.id, ...ratesOf(stored.get(previous.id)) } : null,
        brokenLinks: position < brokenLinksChecked && previous?.indexKey ? await brokenLinks(bucket, entry, previous.indexKey) : [],
      };
    }),
  );
}

/** When `record` last went live; a record stored before that was kept, or one never live, says when it was made. */
function wentLive(record: DeploymentRecord): number {
  return record.liveFrom ?? record.created;
}

/** The not-found paths of `entry` that the deployment before it, whose file index is `indexKey`, served. */
async function brokenLinks(bucket: R2Bucket, entry: StoredDeploymentTraffic, indexKey: string): Promise<{ path: string; count: number }[]> {
  if (entry.notFound.length === 0) return [];
  const paths = new Set((await readFileIndex(bucket, indexKey)).files.map((file) => file.path));
  return entry.notFound.filter(({ value }) => servedPathsOf(value).some((path) => paths.has(path))).map(({ value, count }) => ({ path: value, count }));
}

/** The files a request path was answered from, as serving looks them up: the file, `.html` and `index.html` forms. */
function servedPathsOf(requestPath: string): string[] {
  let path: string;
  try {
    path = decodeURIComponent(requestPath).normalize('NFC').replace(/^\/+/, '');
  } catch {
    return [];
  }
  if (path === '' || path.endsWith('/')) return [`${path}index.html`];
  return [path, `${path}.html`, `${path}/index.html`];
}
