// The body of `GET /v2/sites/<domain>/analytics`, shared as api-types.ts's are (it re-exports
// them): each is a component schema of schema/openapi.json under the same name, checked by
// test/common/api-types.unit.test.ts.

import type { Timestamp } from './api-types.ts';

/** `GET /v2/sites/<domain>/analytics?interval=`: one series point per hour or per UTC day. */
export type TrafficInterval = 'hour' | 'day';

/** What was counted over a span, human traffic only (bots are in `TrafficReport.bots`). */
export interface TrafficCounts {
  requests: number;
  /** GET requests answered 200 with `text/html`. */
  pageViews: number;
  /** Unique visitors, estimated (HyperLogLog; a visitor is an address and user agent within one UTC day). */
  visitors: number;
  /** Response body bytes sent. */
  bytes: number;
  /** Requests answered 2xx (1xx are counted with them), 3xx, 4xx and 5xx. */
  status2xx: number;
  status3xx: number;
  status4xx: number;
  status5xx: number;
}

/** One point of a traffic series: the hour or UTC day that starts at `start`. */
export interface TrafficPoint extends TrafficCounts {
  start: Timestamp;
}

/** One entry of a top list: a path, a referring host or a country code, and its count. */
export interface TopEntry {
  value: string;
  count: number;
}

/** The most frequent values, most first, and what the per-bucket caps counted without a value. */
export interface TopList {
  entries: TopEntry[];
  /** Counted beyond the caps (per isolate and per stored bucket): "other". */
  other: number;
}

/** A site's top lists over the range. */
export interface TrafficTops {
  /** Page views by path. */
  pages: TopList;
  /** Requests by the referring host (the `Referer`'s host only; the host's own requests excluded). */
  referrers: TopList;
  /** Requests by country (ISO 3166-1 alpha-2, from `CF-IPCountry`; `XX` unknown, `T1` Tor). */
  countries: TopList;
  /** 404 answers by path. */
  notFound: TopList;
}

/** Bots' traffic (user agents `isbot` recognises): counted apart, never in the other figures. */
export interface BotTraffic {
  requests: number;
  pageViews: number;
  bytes: number;
}

/** The traffic of one kind of host: the live domain, preview hosts (`<id>.<preview host>`) or alias hosts. */
export interface TrafficReport {
  totals: TrafficCounts;
  /** One point per interval of the range, oldest first, zeros included. */
  series: TrafficPoint[];
  top: TrafficTops;
  bots: BotTraffic;
}

/** A path that answered 404 since a deployment went live and that the deployment before it served. */
export interface BrokenLink {
  path: string;
  /** 404 answers within the range. */
  count: number;
}

/** 4xx and 5xx answers as a share of a deployment's live requests (0 to 1; null with no request). */
export interface ErrorRates {
  rate4xx: number | null;
  rate5xx: number | null;
}

/** The live traffic a deployment served within the range, and what its deploy changed. */
export interface DeploymentTraffic extends ErrorRates {
  deploymentId: string;
  /** When it last went live (its deploy, or its activation: a rollback), if the site still keeps it; null when it is no longer kept. */
  liveFrom: Timestamp | null;
  requests: number;
  pageViews: number;
  bytes: number;
  status4xx: number;
  status5xx: number;
  /** The deployment live before it, and that one's rates over the same range; null for a site's first. */
  previous: (ErrorRates & { deploymentId: string }) | null;
  /** Links the deploy broke, most 404s first (capped by the top lists' caps). */
  brokenLinks: BrokenLink[];
}

/** `GET /v2/sites/<domain>/analytics`: a site's traffic, counted where it was served. */
export interface SiteAnalytics {
  domain: string;
  /** The range, widened to whole intervals: `from` inclusive, `to` exclusive. */
  from: Timestamp;
  to: Timestamp;
  interval: TrafficInterval;
  /** The site's own domain. */
  live: TrafficReport;
  /** Every kept deployment's own host. */
  preview: TrafficReport;
  /** Branch alias hosts (`<alias>--<site part>.<preview host>`). */
  alias: TrafficReport;
  /** The live traffic by the deployment that served it, newest deployment first. */
  deployments: DeploymentTraffic[];
}
