/**
 * `sitehost analytics`: the real CLI against the shared service, after real traffic sent through
 * the service's site host was counted while served, sent through the queue and merged.
 */
import { describe, expect, it } from 'vitest';
import type { SiteAnalytics, SiteInfo } from '../../../src/common/api-types';
import { untilCounted, visit } from '../support/traffic';
import { runCli } from './run';
import { aliceSite, ciEnvironment, expectOneLineError, useCliSession } from './session';

const session = useCliSession();
const domain = 'cli-analytics.example';

async function analyticsJson(): Promise<SiteAnalytics> {
  const run = await runCli(['analytics', domain, '--since', '24h', '--json'], { env: ciEnvironment(session, session.alice) });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as SiteAnalytics;
}

describe('sitehost analytics', () => {
  it('shows the counted traffic: totals, a sparkline, top pages, referrers, not-found paths and the links the live deployment broke', async () => {
    const env = ciEnvironment(session, session.alice);
    await aliceSite(session, 'analytics-v1', domain, { 'index.html': '<h1>v1</h1>', 'about.html': '<h1>about</h1>', 'old-post.html': '<h1>old</h1>' });
    expect(await visit(session.service, domain, '/', { referer: 'https://news.example/item?id=1' })).toBe(200);
    expect(await visit(session.service, domain, '/about.html')).toBe(200);
    expect(await visit(session.service, domain, '/old-post.html')).toBe(200);

    // The second deploy drops old-post.html: a link to it is broken from then on.
    await aliceSite(session, 'analytics-v2', domain, { 'index.html': '<h1>v2</h1>', 'about.html': '<h1>about</h1>' });
    const live = JSON.parse((await runCli(['info', domain, '--json'], { env })).stdout) as SiteInfo;
    expect(await visit(session.service, domain, '/old-post.html')).toBe(404);
    expect(await visit(session.service, domain, '/')).toBe(200);
    expect(await visit(session.service, domain, '/missing')).toBe(404);

    const counted = await untilCounted(analyticsJson, (analytics) => {
      expect(analytics.live.totals).toMatchObject({ requests: 6, pageViews: 4, status4xx: 2 });
      expect(analytics.deployments[0]?.brokenLinks).toEqual([{ path: '/old-post.html', count: 1 }]);
    });
    expect(counted.domain).toBe(domain);
    expect(counted.live.totals.visitors).toBeGreaterThanOrEqual(1);
    expect(counted.deployments.map((deployment) => deployment.deploymentId)[0]).toBe(live.deployment?.id);

    const run = await runCli(['analytics', domain], { env });
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain(`${domain}: live traffic from `);
    expect(out).toMatch(/^REQUESTS\s+PAGE VIEWS\s+VISITORS\s+SENT\s+4XX\s+5XX\s+BOTS\n6\s+4\s+\d+\s+\d[\d.]* [KMG]?i?B\s+2\s+0\s+0$/m);
    // --since defaults to 7 days, which the service reads by day: today's traffic is the peak, drawn full.
    expect(out).toMatch(/^[▁▂▃▄▅▆▇]*█ {2}requests by day \(peak 6 in the day from \d{4}-\d\d-\d\d 00:00:00 UTC\)$/m);
    expect(out).toMatch(/^TOP PAGE\s+VIEWS\n\/\s+2\n/m);
    expect(out).toMatch(/^\/about\.html\s+1$/m);
    expect(out).toMatch(/^TOP REFERRER\s+REQUESTS\nnews\.example\s+1$/m);
    expect(out).toMatch(/^NOT FOUND\s+404S\n(\/old-post\.html\s+1\n\/missing\s+1|\/missing\s+1\n\/old-post\.html\s+1)$/m);
    expect(out).toContain(`Live deployment ${live.deployment?.id} (live since `);
    expect(out).toMatch(/: 4xx 66\.7 % \(before: 0\.0 %\), 5xx 0\.0 % \(before: 0\.0 %\); before it: \w+\nBROKEN LINK\s+404S\n\/old-post\.html\s+1$/m);
    expect(out).toContain('Preview hosts: 0 requests; alias hosts: 0 requests.');
  });

  it('refuses an unreadable --since before asking the service, and a stranger, and shows a viewer the traffic', async () => {
    const since = await runCli(['analytics', domain, '--since', '1w'], { env: ciEnvironment(session, session.alice) });
    expect(since.code).toBe(2);
    expectOneLineError(since);
    expect(since.stderr).toContain('--since takes hours or days back from now');

    const viewerSite = 'cli-analytics-viewer.example';
    await aliceSite(session, 'viewer-site', viewerSite, { 'index.html': '<h1>shared</h1>' });
    const stranger = await runCli(['analytics', viewerSite], { env: ciEnvironment(session, session.bob) });
    expect(stranger.code).not.toBe(0);
    expectOneLineError(stranger);

    const added = await runCli(['members', 'add', viewerSite, 'github|bob', '--role', 'viewer'], { env: ciEnvironment(session, session.alice) });
    expect(added.code, added.stderr).toBe(0);
    const viewer = await runCli(['analytics', viewerSite, '--since', '2026-11-01'], { env: ciEnvironment(session, session.bob) });
    expect(viewer.code, viewer.stderr).toBe(0);
    expect(viewer.stdout).toContain(`${viewerSite}: live traffic from 2026-11-01 00:00:00 UTC to `);
    expect(viewer.stdout).toMatch(/^Live deployment \w+: no traffic in this range\.$/m);
  });
});
