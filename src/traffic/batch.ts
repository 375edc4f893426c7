/**
 * What an isolate sends to the traffic queue (docs/analytics.md): counts per site, host kind,
 * hour and deployment, capped top lists, and visitors as sketch registers. No address, user
 * agent or visitor hash: registers only (src/traffic/sketch.ts).
 */

/** Which host served: the site's own domain, a deployment's own host, or a branch alias host. */
export type HostKind = 'live' | 'preview' | 'alias';
export const hostKinds: readonly HostKind[] = ['live', 'preview', 'alias'];

/** The top lists counted, in this order wherever they are listed. */
export const topLists = ['pages', 'referrers', 'countries', 'notFound'] as const;
export type TopListName = (typeof topLists)[number];

/** The counters of one bucket, in this order wherever they are a row or an array. */
export const counters = ['requests', 'pageViews', 'bytes', 'status2xx', 'status3xx', 'status4xx', 'status5xx', 'botRequests', 'botPageViews', 'botBytes'] as const;
export type Counter = (typeof counters)[number];
export type Counts = number[];

/** The site a count belongs to: a domain as claimed at `claim` (its site's creation time), so a domain claimed again starts empty. */
export interface SiteKey {
  domain: string;
  claim: number;
}

/** One hour of one host kind's traffic served by one deployment ('' for a site of host options alone). */
export interface TallyEntry extends SiteKey {
  host: HostKind;
  /** The hour's first millisecond (UTC). */
  hour: number;
  deployment: string;
  counts: Counts;
  /** Per top list: values and counts. */
  tops: [string, number][][];
  /** Per top list: what the caps counted without a value. */
  other: number[];
}

/** One hour of one host kind's visitors: fine sketch registers (`index * 64 + rank`), or every register as base64 once that is shorter. */
export interface VisitorEntry extends SiteKey {
  host: HostKind;
  hour: number;
  registers: number[] | string;
}

export interface TrafficBatch {
  /** Random: a retried message merges once (each site's object remembers the ids it merged). */
  id: string;
  entries: TallyEntry[];
  visitors: VisitorEntry[];
}

export function emptyCounts(): Counts {
  return new Array<number>(counters.length).fill(0);
}

/** Whether `body` is a batch as this version sends them; anything else is dropped by the consumer. */
export function isTrafficBatch(body: unknown): body is TrafficBatch {
  const batch = body as Partial<TrafficBatch> | null;
  return typeof batch === 'object' && batch !== null && typeof batch.id === 'string' && Array.isArray(batch.entries) && Array.isArray(batch.visitors);
}

/** A batch's entries and visitors by site (`domain claim`), in the order they came. */
export function bySite(batch: TrafficBatch): Map<string, { site: SiteKey; entries: TallyEntry[]; visitors: VisitorEntry[] }> {
  const sites = new Map<string, { site: SiteKey; entries: TallyEntry[]; visitors: VisitorEntry[] }>();
  const of = (key: SiteKey) => {
    const name = `${key.domain} ${key.claim}`;
    let site = sites.get(name);
    if (!site) sites.set(name, (site = { site: { domain: key.domain, claim: key.claim }, entries: [], visitors: [] }));
    return site;
  };
  for (const entry of batch.entries) of(entry).entries.push(entry);
  for (const entry of batch.visitors) of(entry).visitors.push(entry);
  return sites;
}
