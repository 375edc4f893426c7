/**
 * The dashboard (issue 8) as a person uses it: Debian's Chromium, driven by playwright-core,
 * against the real service under `wrangler dev`. Screenshots of every screen go to
 * test-results/dashboard/.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFromSite, type Service, startService, token } from './support/service';
import { type Browser, openBrowser } from './dashboard/browser';
import { makeSiteFolder, siteFiles } from './dashboard/site-folder';
import type { Usage } from '../../src/common/api-types';
import { formatBytes } from '../../src/common/format-bytes';

const screenshots = new URL('../../test-results/dashboard/', import.meta.url).pathname;
const domain = 'dash.example';
/** Small, so that the page meets the limit with a file it can make quickly. */
const maxFileBytes = 64 * 1024;

let service: Service;
let browser: Browser;
let page: Page;
let folder: { parent: string; folder: string };
let userToken: string;
/** Script errors and Content-Security-Policy violations seen in any tab. */
const pageProblems: string[] = [];

/** Signs in with the token form; the token lives in this tab's session storage only. */
async function signIn(target: Page, withToken = userToken): Promise<void> {
  await target.getByLabel('API token').fill(withToken);
  await target.getByRole('button', { name: 'Sign in' }).click();
}

async function shot(target: Page, name: string): Promise<void> {
  await target.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

/** `PUT .../configuration` of the site through the API, as another client would. */
function setConfiguration(configuration: unknown, withToken = userToken): Promise<Response> {
  return fetch(`${service.origin}/v2/sites/${domain}/configuration`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${withToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(configuration),
  });
}

/** Deploys the folder at `path` from the deploy screen: the deployments requests the page made until `done` resolved. */
async function deployRecordingRequests(path: string, done: () => Promise<unknown>): Promise<string[]> {
  await page.goto(`${service.origin}/#/deploy/${domain}`);
  await expect.poll(() => page.locator('h1').textContent()).toBe('Deploy a site');
  await page.locator('#folder').setInputFiles(path);
  const requests: string[] = [];
  const record = (sent: Request) => {
    const { pathname } = new URL(sent.url());
    if (pathname.includes('/deployments')) requests.push(`${sent.method()} ${pathname}`);
  };
  page.on('request', record);
  try {
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await done();
  } finally {
    page.off('request', record);
  }
  return requests;
}

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [service, browser, folder] = await Promise.all([startService({ vars: { MAX_FILE_BYTES: String(maxFileBytes) } }), openBrowser(), makeSiteFolder()]);
  userToken = await token(service, 'github|dashboard', 'deploy global_read');
  browser.context.on('page', (opened) => {
    opened.on('pageerror', (error) => pageProblems.push(String(error)));
    opened.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) pageProblems.push(message.text());
    });
  });
  page = await browser.context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (folder) await rm(folder.parent, { recursive: true, force: true });
});

describe('the dashboard', () => {
  it('is served at / with a strict Content-Security-Policy, next to the API and apart from sites', async () => {
    const index = await fetch(`${service.origin}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = index.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(await index.text()).toContain('/dashboard/app.js');

    const script = await fetch(`${service.origin}/dashboard/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    const config = await fetch(`${service.origin}/dashboard/config.json`);
    expect(await config.json()).toEqual({ apiHostnames: ['localhost', '127.0.0.1', '[::1]'], openId: null });

    const missing = await fetch(`${service.origin}/dashboard/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');

    const post = await fetch(`${service.origin}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    // The API keeps its paths, and a site's host never gets the dashboard.
    expect((await fetch(`${service.origin}/v2/sites`)).status).toBe(401);
    const site = await getFromSite(service, 'nothing.example', '/');
    expect(site.status).toBe(404);
    expect(site.body).not.toContain('/dashboard/app.js');
  });

  it('signs in with a pasted token and refuses a bad one', async () => {
    await page.goto(`${service.origin}/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await shot(page, '01-sign-in');

    await page.getByLabel('API token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('401');

    await signIn(page);
    await expect.poll(() => page.locator('h1').textContent()).toBe('My sites');
    await expect.poll(() => page.locator('main').textContent()).toContain('You have no sites yet');
    expect(await page.locator('.account').textContent()).toContain('github|dashboard');
    await shot(page, '02-my-sites-empty');
  });

  it('deploys a folder of nested files chosen through the folder input, showing progress and the result', async () => {
    await page.getByRole('link', { name: 'Deploy', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Deploy a site');
    // Focus moves to the new screen's heading.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    const domainInput = page.getByLabel('Domain');
    await domainInput.fill('under_score.example');
    await expect.poll(() => page.locator('#domain-message').textContent()).toContain('letters, digits and hyphens');
    expect(await domainInput.getAttribute('aria-invalid')).toBe('true');
    await domainInput.fill('shop.localhost');
    await expect.poll(() => page.locator('#domain-message').textContent()).toContain('reserved');
    await domainInput.fill('Dash.Example');
    await expect.poll(() => page.locator('#domain-message').textContent()).toBe(`✓ Deploys as ${domain}`);
    expect(await domainInput.getAttribute('aria-invalid')).toBeNull();

    await page.locator('#folder').setInputFiles(folder.folder);
    await expect.poll(() => page.locator('#folder-summary').textContent()).toMatch(/^3 files, .* from “my-site”/);
    await shot(page, '03-deploy-form');

    // Record what the progress text says while the upload runs.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      const text = document.getElementById('progress-text')!;
      new MutationObserver(() => seen.push(text.textContent ?? '')).observe(text, { childList: true, characterData: true, subtree: true });
    });
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect.poll(() => page.locator('#deploy-result-heading').textContent()).toBe(`Deployed ${domain}`);
    const progressSeen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(progressSeen.some((text) => /^Sent \d/.test(text))).toBe(true);
    expect(progressSeen.at(-1)).toMatch(/^Sent .*: published\.$/);
    const bar = await page.locator('#upload-progress').evaluate((element: HTMLProgressElement) => ({ value: element.value, max: element.max }));
    // A new site: every file's bytes are sent, and the bar counts them.
    expect(bar.max).toBe(Object.values(siteFiles).join('').length);
    expect(bar.value).toBe(bar.max);
    expect(await page.locator('[data-fact=sent]').textContent()).toMatch(/^3 \(/);

    expect(await page.locator('[data-fact=isNewDomain]').textContent()).toBe('Yes');
    expect(await page.locator('[data-fact=hasNewFiles]').textContent()).toBe('Yes');
    expect(await page.locator('[data-fact=hasNewConfiguration]').textContent()).toBe('No');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('deploy-result-heading');
    expect(await page.locator('#live-link').getAttribute('href')).toBe(`http://${domain}.localhost:${service.port}/`);
    await shot(page, '04-deploy-result');
  });

  it('links to the live site, which serves the deployed files', async () => {
    const [live] = await Promise.all([browser.context.waitForEvent('page'), page.locator('#live-link').click()]);
    // The tab opens blank while the link asks for a share link (none needed: the site is public), then loads the site.
    await expect.poll(() => live.url()).toBe(`http://${domain}.localhost:${service.port}/`);
    await expect.poll(() => live.title()).toBe('Dashboard test (scripted)');
    expect(await live.locator('h1').textContent()).toBe('Hello from the dashboard');
    expect(await live.locator('h1').evaluate((element) => getComputedStyle(element).color)).toBe('rgb(102, 51, 153)');
    await shot(live, '05-live-site');
    await live.close();
  });

  it('redeploys the same folder without sending any file bytes, in one request, and makes no new deployment', async () => {
    const deployRequests = await deployRecordingRequests(folder.folder, () =>
      expect.poll(() => page.locator('#deploy-result-heading').textContent()).toBe(`${domain} serves this already`),
    );
    // The manifest with "finalize": the service holds every file, and serves them already.
    expect(deployRequests).toEqual([`POST /v2/sites/${domain}/deployments`]);
    expect(await page.locator('#unchanged-note').textContent()).toContain('No new deployment was made');
    expect(await page.locator('[data-fact=sent]').textContent()).toBe('0 (0 B)');
    expect(await page.locator('[data-fact=skipped]').textContent()).toMatch(/^3 \(/);
    expect(await page.locator('#progress-text').textContent()).toBe('Sent 0 B: published.');
    await shot(page, '04b-redeploy-result');
  });

  it('shows on the sites page what the user uses of each quota, as GET /v2/usage says', async () => {
    const { sites, bytes, deploysPerHour } = (await (await fetch(`${service.origin}/v2/usage`, { headers: { authorization: `Bearer ${userToken}` } })).json()) as Usage;
    expect(sites.used).toBe(1);
    expect(bytes.used).toBeGreaterThan(0);
    await page.goto(`${service.origin}/#/`);
    const card = page.getByRole('region', { name: 'Your usage' });
    await expect.poll(async () => (await card.locator('dd').allTextContents()).map((text) => text.trim())).toEqual([
      `1 of ${sites.limit}`,
      `${formatBytes(bytes.used)} of ${formatBytes(bytes.limit)}`,
      `${deploysPerHour.used} of ${deploysPerHour.limit} in the last hour`,
    ]);
    expect(await card.getByRole('meter', { name: 'Storage' }).getAttribute('value')).toBe(String(bytes.used));
    await shot(page, '04c-usage');
  });

  it('refuses a folder holding a file over MAX_FILE_BYTES before sending any of its bytes', async () => {
    const tooBig = join(folder.parent, 'too-big');
    await mkdir(tooBig, { recursive: true });
    await writeFile(join(tooBig, 'index.html'), 'new home');
    await writeFile(join(tooBig, 'video.mp4'), Buffer.alloc(maxFileBytes + 1));
    const deployRequests = await deployRecordingRequests(tooBig, () => expect.poll(() => page.locator('[role=alert]').textContent()).toContain('MAX_FILE_BYTES'));
    // Named as the site would name it, without the chosen folder.
    expect(await page.locator('[role=alert]').textContent()).toContain('The file "video.mp4"');
    expect(deployRequests).toEqual([`POST /v2/sites/${domain}/deployments`]);
    expect((await getFromSite(service, domain, '/')).body).toBe(siteFiles['index.html']);
  });

  it('browses folders, uploads and deletes a file, and shows live events and the certificate on the site page', async () => {
    // A second tab (signed in on its own: tokens are kept per tab) watches the site page while the first one changes files.
    const watcher = await browser.context.newPage();
    await watcher.goto(`${service.origin}/#/sites/${domain}`);
    await signIn(watcher);
    await expect.poll(() => watcher.locator('h1').textContent()).toBe(domain);
    await expect.poll(() => watcher.locator('#events-state').textContent()).toContain('Live');
    await expect.poll(() => watcher.locator('#certificate').textContent()).toContain('Status');

    await page.goto(`${service.origin}/#/sites/${domain}/files/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Files of ${domain}`);
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual(['css/', 'index.html', 'js/']);
    await page.getByRole('link', { name: 'js/' }).click();
    await page.getByRole('link', { name: 'app/' }).click();
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual(['main.js']);
    await shot(page, '06-files');

    await writeFile(join(folder.parent, 'extra.txt'), 'one more file\n');
    await page.getByLabel('File', { exact: true }).setInputFiles(join(folder.parent, 'extra.txt'));
    expect(await page.getByLabel('Path on the site').inputValue()).toBe('/js/app/extra.txt');
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual(['extra.txt', 'main.js']);
    await expect.poll(() => watcher.locator('#events').textContent()).toContain('files-update');
    await shot(watcher, '07-site-events');
    await watcher.close();

    await page.getByRole('button', { name: 'Delete /js/app/extra.txt' }).click();
    await expect.poll(() => page.locator('dialog[open] h2').textContent()).toBe('Delete /js/app/extra.txt?');
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete file' }).click();
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual(['main.js']);
  });

  it("lists the site's deployments and makes an older one live after confirmation", async () => {
    await page.goto(`${service.origin}/#/sites/${domain}`);
    const rows = page.locator('#deployments tbody tr');
    // Newest first: the file deleted, the file added, the first deploy (the unchanged redeploy made none), all from the dashboard.
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.locator('td[data-label=Source]').allTextContents()).toEqual(['dashboard file-delete', 'dashboard file-put', 'dashboard incremental']);
    // With what credential: the deploy by the signed-in user's token (a JWT); edits of files record none.
    expect(await rows.locator('td[data-label=Via]').allTextContents()).toEqual(['', '', 'sign-in']);
    expect(await rows.first().getAttribute('data-live')).toBe('true');
    expect(await rows.first().locator('td[data-label=Live]').textContent()).toBe('Live');
    const withExtra = rows.nth(1);
    const id = await withExtra.getAttribute('data-deployment');
    expect(await withExtra.getByRole('link', { name: /Preview/ }).getAttribute('href')).toBe(`http://${id}.preview.localhost:${service.port}/`);
    await shot(page, '07b-deployments');

    await withExtra.getByRole('button', { name: `Make deployment ${id} live` }).click();
    await expect.poll(() => page.locator('dialog[open] h2').textContent()).toBe(`Make deployment ${id} live?`);
    await shot(page, '07c-make-live-confirm');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog').count()).toBe(0);
    expect((await getFromSite(service, domain, '/js/app/extra.txt')).status).toBe(404);

    await withExtra.getByRole('button', { name: `Make deployment ${id} live` }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Make live' }).click();
    // The activation's answer, which comes once every location serves it (the list, reloaded by
    // an event meanwhile, may show it live a moment before).
    await expect.poll(() => page.getByRole('status').allTextContents()).toContain(`Deployment ${id} is live on ${domain}.`);
    await expect.poll(() => page.locator(`#deployments tr[data-deployment="${id}"]`).getAttribute('data-live')).toBe('true');
    expect(await page.locator('#deployments tr[data-live]').count()).toBe(1);
    expect(await getFromSite(service, domain, '/js/app/extra.txt')).toEqual({ status: 200, body: 'one more file\n' });

    // A change made elsewhere (here, a configuration edit through the API) shows in the list as its event arrives.
    await expect.poll(() => page.locator('#events').textContent()).toContain('site-deploy');
    expect((await setConfiguration({ headers: [{ fields: { 'x-edited': 'elsewhere' } }] })).status).toBe(200);
    await expect.poll(() => rows.first().locator('td[data-label=Source]').textContent()).toBe('api configuration');
    expect(await rows.first().getAttribute('data-live')).toBe('true');
    expect(await page.locator('#deployments tr[data-live]').count()).toBe(1);
    expect((await setConfiguration({})).status).toBe(200);
  });

  it('follows changes made elsewhere without live events, for a token that may not read them', async () => {
    // Events need global_read; a deploy-only token's page asks for the site's state now and then.
    const deployOnly = await token(service, 'github|dashboard', 'deploy');
    const watcher = await browser.context.newPage();
    // The page's own clock, so its 10-second checks come when the test moves it, not after 10 s of waiting.
    // Moved again at each poll: the page sets its first check once live events are refused and each
    // next one once the last is answered, which on a busy machine may come after the clock first moved.
    await watcher.clock.install();
    const afterChecks = <T>(read: () => Promise<T>) => async () => {
      await watcher.clock.fastForward(10_000);
      return read();
    };
    await watcher.goto(`${service.origin}/#/sites/${domain}`);
    await signIn(watcher, deployOnly);
    await expect.poll(() => watcher.locator('#events-state').textContent()).toMatch(/^Live events are not available: .* This page checks for changes every 10 seconds\.$/);
    const firstRow = watcher.locator('#deployments tbody tr').first();
    await expect.poll(() => firstRow.getAttribute('data-live')).toBe('true');
    const shownBefore = await firstRow.getAttribute('data-deployment');

    expect((await setConfiguration({ headers: [{ fields: { 'x-edited': 'unwatched' } }] }, deployOnly)).status).toBe(200);
    const listed = await fetch(`${service.origin}/v2/sites/${domain}/deployments`, { headers: { authorization: `Bearer ${deployOnly}` } });
    const [newest] = ((await listed.json()) as { deployments: { id: string }[] }).deployments;
    expect(newest!.id).not.toBe(shownBefore);
    await expect.poll(afterChecks(() => firstRow.getAttribute('data-deployment'))).toBe(newest!.id);
    expect(await firstRow.getAttribute('data-live')).toBe('true');
    expect(await watcher.locator('#deployments tr[data-live]').count()).toBe(1);
    expect((await setConfiguration({}, deployOnly)).status).toBe(200);

    // A site unpublished elsewhere: the page says so, and stops asking.
    const gone = 'gone.example';
    const form = new FormData();
    form.append('directory', new Blob(['soon gone']), 'index.html');
    const authorization = { authorization: `Bearer ${deployOnly}` };
    expect((await fetch(`${service.origin}/v2/sites/${gone}`, { method: 'PUT', headers: authorization, body: form })).status).toBe(200);
    await watcher.goto(`${service.origin}/#/sites/${gone}`);
    await expect.poll(() => watcher.locator('#deployments tbody tr').count()).toBe(1);
    expect((await fetch(`${service.origin}/v2/sites/${gone}`, { method: 'DELETE', headers: authorization })).ok).toBe(true);
    await expect.poll(afterChecks(() => watcher.locator('#events-state').textContent())).toMatch(/^This page no longer checks for changes: No site is hosted at gone\.example/);
    expect(await watcher.getByRole('alert').first().textContent()).toContain('Site not found (404)');
    await expect.poll(() => watcher.locator('#deployments').textContent()).toContain('Site not found (404)');
    expect(await watcher.locator('#deployments tbody tr').count()).toBe(0);
    await watcher.close();
  });

  it('refuses an invalid configuration in the page, at the pointer of the error, and saves a valid one', async () => {
    await page.goto(`${service.origin}/#/sites/${domain}/configuration`);
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Configuration of ${domain}`);
    const editor = page.getByLabel('Host options (JSON)');
    await expect.poll(() => editor.inputValue()).toBe('{}');

    const invalid = '{\n  "fallback": 404\n}';
    await editor.fill(invalid);
    await page.getByRole('button', { name: 'Save configuration' }).click();
    const error = page.locator('#configuration-errors button[data-pointer="/fallback"]');
    await expect.poll(() => error.textContent()).toMatch(/^\/fallback must be/);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    // The first error has the focus; choosing it selects the offending member in the text.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-pointer'))).toBe('/fallback');
    await error.click();
    const selected = await editor.evaluate((element: HTMLTextAreaElement) => element.value.slice(element.selectionStart, element.selectionEnd));
    expect(selected).toBe('"fallback": 404');
    await shot(page, '08-configuration-error');

    // Nothing was sent: the stored configuration is unchanged.
    const stored = await fetch(`${service.origin}/v2/sites/${domain}/configuration`, { headers: { authorization: `Bearer ${userToken}` } });
    expect((await stored.json()).configuration).toEqual({});

    await editor.fill('{"fallback": "/index.html"}');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'saved' }).count()).toBeGreaterThan(0);
    expect(await editor.inputValue()).toBe('{\n  "fallback": "/index.html"\n}');
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${service.origin}/#/`);
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual([domain]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, '09-my-sites-phone');
    await page.goto(`${service.origin}/#/deploy`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Deploy a site');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, '10-deploy-phone');
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('deploys a preview with an alias and a message, listed as a preview with its message, source, alias and time to the second', async () => {
    await page.goto(`${service.origin}/#/deploy/${domain}`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Deploy a site');
    await page.locator('#folder').setInputFiles(folder.folder);
    await page.getByLabel('Preview only').check();
    const alias = page.getByLabel('Alias (optional)');
    await alias.fill('Feature X');
    await expect.poll(() => page.locator('#alias-message').textContent()).toContain('lower-case letters, digits and single hyphens');
    expect(await alias.getAttribute('aria-invalid')).toBe('true');
    // Refused in the page: nothing is sent.
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('alias');
    await alias.fill('feature-x');
    await page.getByLabel('Message (optional)').fill('Try the new header');
    await shot(page, '10b-deploy-preview-form');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect.poll(() => page.locator('#deploy-result-heading').textContent()).toBe(`Preview of ${domain}`);
    const aliasUrl = await page.locator('#alias-link').getAttribute('href');
    expect(aliasUrl).toMatch(new RegExp(`^http://feature-x--dash-example-[a-z2-7]{13}\\.preview\\.localhost:${service.port}/$`));
    const aliasHost = new URL(aliasUrl!).hostname.replace(/\.localhost$/, '');
    // A new site's previews are for members: the link opens the alias host through a share link it mints.
    expect((await getFromSite(service, aliasHost, '/')).status).toBe(401);
    const [aliasTab] = await Promise.all([page.waitForEvent('popup'), page.locator('#alias-link').click()]);
    // It lands on the alias's own address, the grant out of it, and shows the preview.
    await expect.poll(() => aliasTab.url()).toBe(aliasUrl);
    await expect.poll(() => aliasTab.locator('h1').textContent()).toBe('Hello from the dashboard');
    await aliasTab.close();
    await shot(page, '10c-deploy-preview-result');

    await page.getByRole('link', { name: 'Manage the site' }).click();
    const newest = page.locator('#deployments tbody tr').first();
    await expect.poll(() => newest.getAttribute('data-preview')).toBe('true');
    expect(await newest.getAttribute('data-live')).toBeNull();
    expect(await newest.locator('td[data-label=Live]').textContent()).toContain('Preview');
    expect(await newest.locator('td[data-label=Message]').textContent()).toBe('Try the new header');
    expect(await newest.locator('td[data-label=Source]').textContent()).toBe('dashboard incremental');
    expect(await newest.locator('td[data-label=Alias] a').getAttribute('href')).toBe(aliasUrl);
    expect(await newest.locator('td[data-label=Created]').textContent()).toMatch(/\d:\d\d:\d\d/);
    await shot(page, '10d-deployments-with-preview');
  });

  it('unpublishes a site after confirmation, and not without it', async () => {
    await page.goto(`${service.origin}/#/`);
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual([domain]);
    await shot(page, '11-my-sites');

    await page.getByRole('button', { name: 'Unpublish' }).click();
    await expect.poll(() => page.locator('dialog[open] h2').textContent()).toBe(`Unpublish ${domain}?`);
    await shot(page, '12-unpublish-confirm');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog').count()).toBe(0);
    expect(await page.locator('tbody th').allTextContents()).toEqual([domain]);

    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Unpublish' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(0);
    expect(await page.getByRole('status').filter({ hasText: `${domain} was unpublished.` }).count()).toBeGreaterThan(0);
    const sites = await fetch(`${service.origin}/v2/sites`, { headers: { authorization: `Bearer ${userToken}` } });
    expect(await sites.json()).toEqual([]);
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
