/**
 * The site screen's Traffic section as a site owner uses it: Debian's Chromium, driven by
 * playwright-core, against the shared service, after real traffic sent through the service's
 * site host was counted, queued and merged. Screenshots go to test-results/dashboard/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployResult } from '../../../src/common/api-types';
import { type RunningService, sharedService, token } from '../support/service';
import { readAnalytics, untilCounted, visit } from '../support/traffic';
import { type Browser, openBrowser, signedInTab } from './browser';

const screenshots = new URL('../../../test-results/dashboard/', import.meta.url).pathname;
const domain = 'traffic-dash.example';
const owner = 'github|traffic-dash-owner';

let service: RunningService;
let browser: Browser;
let bearer: string;
const pageProblems: string[] = [];

async function deploy(site: string, files: Record<string, string>): Promise<DeployResult> {
  const form = new FormData();
  for (const [name, body] of Object.entries(files)) form.append('directory', new File([body], name));
  const response = await fetch(`${service.origin}/v2/sites/${site}`, { method: 'PUT', headers: { authorization: `Bearer ${bearer}` }, body: form });
  expect(response.status).toBe(200);
  return (await response.json()) as DeployResult;
}

async function signedInOnSite(): Promise<Page> {
  const page = await signedInTab(browser, service.origin, bearer, pageProblems);
  await page.goto(`${service.origin}/#/sites/${domain}`);
  await expect.poll(() => page.locator('h1').textContent()).toBe(domain);
  return page;
}

/** The Requests column of the table of numbers under the chart. */
async function tabledRequests(page: Page): Promise<number[]> {
  return (await page.locator('#traffic-series tbody tr td:nth-of-type(1)').allTextContents()).map(Number);
}

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [service, browser] = await Promise.all([sharedService(), openBrowser()]);
  bearer = await token(service, owner);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the Traffic section of the site screen', () => {
  it('charts the counted requests with both deployments marked, and lists the visited pages, the referrer and the broken link', async () => {
    const first = await deploy(domain, { 'index.html': '<h1>v1</h1>', 'about.html': '<h1>about</h1>', 'old.html': '<h1>old</h1>' });
    expect(await visit(service, domain, '/')).toBe(200);
    expect(await visit(service, domain, '/about.html', { referer: 'https://links.example/list' })).toBe(200);
    expect(await visit(service, domain, '/old.html')).toBe(200);
    const second = await deploy(domain, { 'index.html': '<h1>v2</h1>', 'about.html': '<h1>about</h1>' });
    expect(await visit(service, domain, '/old.html')).toBe(404);
    expect(await visit(service, domain, '/')).toBe(200);
    await untilCounted(() => readAnalytics(service, domain, bearer), (analytics) => {
      expect(analytics.live.totals.requests).toBe(5);
      expect(analytics.deployments.find((deployment) => deployment.deploymentId === second.deploymentId)?.brokenLinks).toEqual([{ path: '/old.html', count: 1 }]);
    });

    const page = await signedInOnSite();
    const section = page.locator('section[aria-labelledby="traffic-heading"]');
    const chart = section.locator('.traffic-chart');
    await expect.poll(() => chart.getAttribute('data-requests')).toBe('5');
    expect(await chart.locator('canvas').count()).toBe(1);
    expect(await chart.getAttribute('data-markers')).toBe('2');
    expect(await section.locator('[data-total="Requests"]').textContent()).toBe('5');
    expect(await section.locator('[data-total="Page views"]').textContent()).toBe('4');

    // The hour the pointer is over: the legend shows what the table of numbers says of it.
    const requests = await tabledRequests(page);
    expect(requests.reduce((sum, value) => sum + value, 0)).toBe(5);
    const plot = chart.locator('.u-over');
    const area = await plot.boundingBox();
    if (!area) throw new Error('The chart has no plotting area');
    await plot.hover({ position: { x: area.width - 1, y: area.height / 2 } });
    const legendRequests = chart.locator('.u-legend .u-series', { hasText: 'Requests' }).locator('.u-value');
    await expect.poll(() => legendRequests.textContent()).toBe(String(requests.at(-1)));

    expect(await section.locator('#traffic-pages tbody tr').first().locator('th').textContent()).toBe('/');
    expect(await section.locator('#traffic-pages tbody tr').first().locator('td').textContent()).toBe('2');
    expect(await section.locator('#traffic-referrers tbody th').allTextContents()).toEqual(['links.example']);
    expect(await section.locator('#traffic-not-found tbody th').allTextContents()).toEqual(['/old.html']);
    const broke = section.locator(`#traffic-deployments tr[data-deployment="${second.deploymentId}"]`);
    expect(await broke.locator('.broken-links').textContent()).toBe('/old.html (1)');
    expect(await broke.locator('[data-label="Errors"]').textContent()).toBe('4xx 50.0 % (before: 0.0 %), 5xx 0.0 % (before: 0.0 %)');
    expect(await section.locator(`#traffic-deployments tr[data-deployment="${first.deploymentId}"] .broken-links`).textContent()).toBe('None');
    await section.screenshot({ path: join(screenshots, 'site-traffic.png') });

    // Seven days read by day: the same requests, in one day's point or two.
    await section.getByLabel('7 days').check();
    await expect.poll(() => section.locator('#traffic-series thead th').first().textContent()).toBe('Day from');
    expect(await section.getByLabel('By day').isChecked()).toBe(true);
    await expect.poll(() => chart.getAttribute('data-requests')).toBe('5');
    expect((await tabledRequests(page)).length).toBeGreaterThanOrEqual(7);

    // On a phone the chart narrows with the page, which scrolls no wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => (await chart.locator('canvas').boundingBox())?.width ?? Infinity).toBeLessThan(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await section.screenshot({ path: join(screenshots, 'site-traffic-phone.png') });
    expect(pageProblems).toEqual([]);
  });
});
