/**
 * Traffic analytics end to end on the runtime: requests served through the Worker, counted in
 * its memory, sent on the real traffic queue, merged by its consumer into the site's
 * `SiteTraffic` object, and read through `GET /v2/sites/<domain>/analytics`.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { SiteAnalytics } from '../../src/common/api-types';
import { consumeQueue } from '../../src/queues';
import { emptyCounts, type TrafficBatch } from '../../src/traffic/batch';
import { sendCounted } from '../../src/traffic/counting';
import { authorized, call, problemOf } from '../support/client';
import { deployed, site } from '../serving/support';

const page = '<!doctype html><title>Home</title><a href="/about">About</a>';
const about = '<!doctype html><title>About</title>';
const style = 'body { color: teal }';

async function analyticsOf(domain: string, query = '', as = {}): Promise<SiteAnalytics> {
  const response = await authorized(`/v2/sites/${domain}/analytics${query}`, {}, as);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** Today (UTC), whole: read from the day's fine sketch. */
function today(): string {
  const day = new Date().toISOString().slice(0, 10);
  return `?from=${day}&interval=day&to=${new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)}`;
}

/** Sends what this isolate counted until the site's live totals show `requests` (a visitor's hash may land after a send: the next one carries it). */
async function counted(domain: string, requests: number, query = today()): Promise<SiteAnalytics> {
  let body: SiteAnalytics | undefined;
  await expect
    .poll(
      async () => {
        await sendCounted(env);
        body = await analyticsOf(domain, query);
        return body.live.totals.requests + body.live.bots.requests;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(requests);
  return body!;
}

function visitor(i: number, extra: Record<string, string> = {}): RequestInit {
  return { headers: { 'cf-connecting-ip': `198.51.${i >> 8}.${i & 255}`, 'user-agent': `Mozilla/5.0 (visitor ${i % 7})`, ...extra } };
}

async function claimOf(domain: string): Promise<number> {
  return (await env.DB.prepare('SELECT created FROM sites WHERE domain = ?').bind(domain).first<{ created: number }>())!.created;
}

describe('traffic analytics', () => {
  it('counts requests, page views, bytes, statuses and top lists exactly once sent, bots apart', async () => {
    const domain = 'traffic-counts.example';
    await deployed(domain, { 'index.html': page, 'about.html': about, 'a.css': style });
    const sent: Promise<Response>[] = [];
    for (let i = 0; i < 6; i++) sent.push(site(domain, '/', visitor(i, { referer: 'https://news.example/item', 'cf-ipcountry': 'DE' })));
    for (let i = 0; i < 3; i++) sent.push(site(domain, '/about', visitor(i, { referer: `http://${domain}.localhost/`, 'cf-ipcountry': 'FR' })));
    for (let i = 0; i < 4; i++) sent.push(site(domain, '/a.css', visitor(i)));
    for (let i = 0; i < 2; i++) sent.push(site(domain, '/gone', visitor(i)));
    for (let i = 0; i < 5; i++) sent.push(site(domain, '/', { headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } }));
    const responses = await Promise.all(sent);
    const bodies = await Promise.all(responses.map((response) => response.arrayBuffer()));
    const humanBytes = bodies.slice(0, 15).reduce((sum, body) => sum + body.byteLength, 0);

    const body = await counted(domain, 20);
    expect(body.live.totals).toEqual({ requests: 15, pageViews: 9, visitors: 6, bytes: humanBytes, status2xx: 13, status3xx: 0, status4xx: 2, status5xx: 0 });
    expect(body.live.bots).toEqual({ requests: 5, pageViews: 5, bytes: 5 * new TextEncoder().encode(page).length });
    expect(body.live.top.pages.entries).toEqual([
      { value: '/', count: 6 },
      { value: '/about', count: 3 },
    ]);
    // The site's own host is no referrer.
    expect(body.live.top.referrers).toEqual({ entries: [{ value: 'news.example', count: 6 }], other: 0 });
    expect(body.live.top.countries.entries).toEqual([
      { value: 'DE', count: 6 },
      { value: 'XX', count: 6 },
      { value: 'FR', count: 3 },
    ]);
    expect(body.live.top.notFound.entries).toEqual([{ value: '/gone', count: 2 }]);
    expect(body.preview.totals.requests).toBe(0);
    expect(body.deployments).toHaveLength(1);
    expect(body.deployments[0]).toMatchObject({ requests: 15, status4xx: 2, rate4xx: 2 / 15, previous: null, brokenLinks: [] });

    // The deployment's own host is preview traffic, kept apart from the live site's.
    const { deploymentId } = body.deployments[0]!;
    await Promise.all([0, 1].map((i) => call(`http://${deploymentId}.preview.localhost/about`, visitor(i)).then((response) => response.arrayBuffer())));
    await expect
      .poll(async () => {
        await sendCounted(env);
        const { preview, live } = await analyticsOf(domain, today());
        return [preview.totals.requests, preview.totals.pageViews, preview.top.pages.entries, live.totals.requests];
      }, { timeout: 30_000, interval: 200 })
      .toEqual([2, 2, [{ value: '/about', count: 2 }], 15]);
  });

  it('estimates unique visitors against a known number of distinct address and user agent pairs', async () => {
    const domain = 'traffic-visitors.example';
    await deployed(domain, { 'index.html': page });
    const distinct = 400;
    const firstHour = Math.floor(Date.now() / 3_600_000);
    // Each pair twice, and a bot that would be many visitors were it counted.
    for (let round = 0; round < 2; round++) {
      for (let start = 0; start < distinct; start += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => site(domain, '/', visitor(start + i)).then((response) => response.arrayBuffer())));
      }
    }
    await Promise.all(Array.from({ length: 20 }, (_, i) => site(domain, '/', visitor(1000 + i, { 'user-agent': 'curl/8.5.0' })).then((response) => response.arrayBuffer())));
    const body = await counted(domain, 2 * distinct + 20);
    expect(body.live.bots.requests).toBe(20);
    expect(Math.abs(body.live.totals.visitors - distinct) / distinct).toBeLessThanOrEqual(0.03);
    // The hourly series reads the hours' coarse sketches, whose standard error is 3.25 % (docs/analytics.md): the day's
    // secret is random, so a bound of four of them (5 % failed one run in eight or so), as the day's 3 % is nearly four of its 0.81 %.
    const hourly = await analyticsOf(domain);
    const visitors = hourly.live.series.map((point) => point.visitors);
    const total = visitors.reduce((sum, count) => sum + count, 0);
    if (Math.floor(Date.now() / 3_600_000) === firstHour) {
      expect(Math.abs(total - distinct) / distinct).toBeLessThanOrEqual(0.13);
    } else {
      // The requests straddled the turn of an hour: a pair seen in both hours is a visitor of each.
      expect(Math.max(...visitors)).toBeLessThanOrEqual(distinct * 1.13);
      expect(total).toBeGreaterThanOrEqual(distinct * 0.87);
    }
  });

  it('merges a batch the queue delivers again once', async () => {
    const domain = 'traffic-retry.example';
    await deployed(domain, { 'index.html': page });
    const claim = await claimOf(domain);
    const counts = emptyCounts();
    counts[0] = 7;
    counts[3] = 7;
    const hour = Date.now() - (Date.now() % 3_600_000);
    const batch: TrafficBatch = { id: crypto.randomUUID(), entries: [{ domain, claim, host: 'live', hour, deployment: 'd1', counts, tops: [[], [], [], []], other: [0, 0, 0, 0] }], visitors: [] };
    for (let delivery = 1; delivery <= 2; delivery++) {
      const messages = createMessageBatch('sitehost-traffic', [{ id: `retry-${delivery}`, timestamp: new Date(), attempts: delivery, body: batch }]);
      await consumeQueue(messages, env);
      expect(await getQueueResult(messages, createExecutionContext())).toMatchObject({ ackAll: false, explicitAcks: [`retry-${delivery}`], retryMessages: [] });
    }
    expect((await analyticsOf(domain, today())).live.totals.requests).toBe(7);
  });

  it('retries a batch one site failed to merge, with backoff, holding back no other site, and counts it once per site', async () => {
    const [failing, fine, other] = ['traffic-fail-a.example', 'traffic-fail-b.example', 'traffic-fail-c.example'];
    for (const domain of [failing, fine, other]) await deployed(domain, { 'index.html': page });
    const hour = Date.now() - (Date.now() % 3_600_000);
    const entry = async (domain: string, requests: number) => ({ domain, claim: await claimOf(domain), host: 'live' as const, hour, deployment: 'd1', counts: [requests, 0, 0, requests, 0, 0, 0, 0, 0, 0], tops: [[], [], [], []], other: [0, 0, 0, 0] });
    const both: TrafficBatch = { id: crypto.randomUUID(), entries: [await entry(failing, 3), await entry(fine, 4)], visitors: [] };
    const alone: TrafficBatch = { id: crypto.randomUUID(), entries: [await entry(other, 5)], visitors: [] };
    // The failing site's object cannot be reached (its namespace refuses it); every other call is the real one.
    const failingId = env.SITE_TRAFFIC.idFromName(failing).toString();
    const broken = {
      ...env,
      SITE_TRAFFIC: new Proxy(env.SITE_TRAFFIC, {
        get: (namespace, name) =>
          name === 'get'
            ? (id: DurableObjectId) => {
                if (id.toString() === failingId) throw new Error('unreachable');
                return namespace.get(id);
              }
            : Reflect.get(namespace, name).bind(namespace),
      }),
    };
    const first = createMessageBatch('sitehost-traffic', [
      { id: 'both-1', timestamp: new Date(), attempts: 2, body: both },
      { id: 'alone-1', timestamp: new Date(), attempts: 1, body: alone },
    ]);
    await consumeQueue(first, broken);
    expect(await getQueueResult(first, createExecutionContext())).toMatchObject({ explicitAcks: ['alone-1'], retryMessages: [{ msgId: 'both-1' }] });
    expect((await analyticsOf(fine, today())).live.totals.requests).toBe(4);
    expect((await analyticsOf(other, today())).live.totals.requests).toBe(5);
    expect((await analyticsOf(failing, today())).live.totals.requests).toBe(0);
    const again = createMessageBatch('sitehost-traffic', [{ id: 'both-1', timestamp: new Date(), attempts: 3, body: both }]);
    await consumeQueue(again, env);
    expect(await getQueueResult(again, createExecutionContext())).toMatchObject({ explicitAcks: ['both-1'], retryMessages: [] });
    expect((await analyticsOf(failing, today())).live.totals.requests).toBe(3);
    expect((await analyticsOf(fine, today())).live.totals.requests).toBe(4);
  });

  it('forgets an unpublished site, and shows a domain claimed again nothing of the previous claim', async () => {
    const domain = 'traffic-reclaim.example';
    await deployed(domain, { 'index.html': page });
    const oldClaim = await claimOf(domain);
    await Promise.all([0, 1, 2].map((i) => site(domain, '/', visitor(i)).then((response) => response.arrayBuffer())));
    await counted(domain, 3);
    // Counted before the unpublish, sent after it: dropped.
    await site(domain, '/', visitor(9)).then((response) => response.arrayBuffer());
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    await sendCounted(env);
    // The unpublish's follow-up empties the site's traffic object.
    const stub = env.SITE_TRAFFIC.get(env.SITE_TRAFFIC.idFromName(domain));
    await expect.poll(() => runInDurableObject(stub, (_, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM hour_counts').one().n)).toBe(0);
    await deployed(domain, { 'index.html': page }, undefined);
    expect(await claimOf(domain)).not.toBe(oldClaim);
    const late: TrafficBatch = {
      id: crypto.randomUUID(),
      entries: [{ domain, claim: oldClaim, host: 'live', hour: Date.now() - (Date.now() % 3_600_000), deployment: 'old', counts: [5, 0, 0, 5, 0, 0, 0, 0, 0, 0], tops: [[], [], [], []], other: [0, 0, 0, 0] }],
      visitors: [],
    };
    await consumeQueue(createMessageBatch('sitehost-traffic', [{ id: 'late', timestamp: new Date(), attempts: 1, body: late }]), env);
    const body = await analyticsOf(domain, today());
    expect(body.live.totals.requests).toBe(0);
    expect(body.deployments).toEqual([]);
    await site(domain, '/', visitor(1)).then((response) => response.arrayBuffer());
    expect((await counted(domain, 1)).live.totals.requests).toBe(1);
  });

  it('answers viewers and refuses a bad range with a problem naming its limit', async () => {
    const domain = 'traffic-access.example';
    await deployed(domain, { 'index.html': page });
    const viewer = 'github|traffic-viewer';
    expect((await authorized(`/v2/sites/${domain}/members/${encodeURIComponent(viewer)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"role":"viewer"}' })).status).toBe(201);
    expect((await analyticsOf(domain, '', { user: viewer })).live.series).toHaveLength(24);
    expect((await authorized(`/v2/sites/${domain}/analytics`, {}, { user: 'github|stranger' })).status).toBe(403);
    for (const query of ['?interval=week', '?from=yesterday', '?from=2026-11-02&to=2026-11-01', '?from=2026-01-01&to=2026-11-01&interval=hour', '?from=2024-01-01&to=2026-11-01']) {
      const response = await authorized(`/v2/sites/${domain}/analytics${query}`);
      expect(response.status, query).toBe(400);
      expect((await problemOf(response)).type).toBe('/problems/invalid-request');
    }
    const tooLong = await problemOf(await authorized(`/v2/sites/${domain}/analytics?from=2026-01-01&to=2026-11-01&interval=hour`));
    expect(tooLong.limit).toBe('ANALYTICS_HOURLY_RETENTION_DAYS');
  });
});
