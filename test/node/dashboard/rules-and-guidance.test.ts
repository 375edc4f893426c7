/**
 * The dashboard's rough edges of issue 35, in Debian's Chromium against the real service: a
 * deployment's rules shown as rules (not as files to delete), the configuration editor's guidance
 * from the host schema, one fallback form, the live deployment and one time on the site card,
 * sizes in binary units, and the alias host's hash explained. Screenshots go to
 * test-results/dashboard/.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import hostSchema from '../../../schema/host.schema.json';
import type { DeployResult } from '../../../src/common/api-types';
import { type RunningService, sharedService, token } from '../support/service';
import { type Browser, openBrowser } from './browser';
import { makeSiteFolder } from './site-folder';

const screenshots = new URL('../../../test-results/dashboard/', import.meta.url).pathname;
const domain = 'rules.example';
const files = {
  'index.html': '<h1>Home</h1>',
  'new.html': '<h1>New</h1>',
  _redirects: '/old /new 301\n/fr/* /fr/index.html 200 Language=fr\n/blog/:lang:/* /posts/:lang:/:splat 302!\n',
  _headers: '/assets/*\n  Cache-Control: public, max-age=31536000\n  ! X-Frame-Options\n',
};
const configuration = { redirects: [{ from: '/docs', to: '/guide' }], headers: [{ fields: { 'X-Frame-Options': 'DENY' } }] };

let service: RunningService;
let browser: Browser;
let page: Page;
let userToken: string;
let folder: { parent: string; folder: string };
const pageProblems: string[] = [];

/** A multipart deploy through the API, as CI would make it. */
async function deploy(siteFiles: Record<string, string>, fields: Record<string, string> = {}): Promise<DeployResult> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [path, content] of Object.entries(siteFiles)) form.append('directory', new Blob([content]), path);
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${userToken}` }, body: form });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json() as Promise<DeployResult>;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

async function open(hash: string, heading: string): Promise<void> {
  await page.goto(`${service.origin}/${hash}`);
  await expect.poll(() => page.locator('h1').textContent()).toBe(heading);
}

let first: DeployResult;

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [service, browser, folder] = await Promise.all([sharedService(), openBrowser(), makeSiteFolder()]);
  userToken = await token(service, 'github|rules', 'deploy global_read');
  browser.context.on('page', (opened) => {
    opened.on('pageerror', (error) => pageProblems.push(String(error)));
    opened.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) pageProblems.push(message.text());
    });
  });
  first = await deploy(files, { configuration: JSON.stringify(configuration), message: 'Ship the rules' });
  page = await browser.context.newPage();
  await page.goto(`${service.origin}/`);
  await page.getByLabel('API token').fill(userToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'My sites', level: 1 }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder.parent, { recursive: true, force: true });
});

describe('the dashboard, issue 35', () => {
  it('names the live deployment on the site card, with one time where three agree, and follows a new one', async () => {
    await open(`#/sites/${domain}`, domain);
    const card = page.getByRole('region', { name: 'Deployment', exact: true });
    await expect.poll(() => page.locator('#live-deployment').textContent()).toBe(`${first.deploymentId} Ship the rules by github|rules (api deploy)`);
    // The site was created, changed and given its deployment by one deploy: one time says so.
    expect(await card.locator('dt').allTextContents()).toEqual(['Live deployment', 'Files', 'Deployed', 'Owner']);
    expect(await card.locator('time').count()).toBe(1);
    await shot('20-site-card');

    const second = await deploy({ ...files, 'index.html': '<h1>Home, again</h1>' }, { message: 'Second' });
    await expect.poll(() => page.locator('#live-deployment').textContent()).toBe(`${second.deploymentId} Second by github|rules (api deploy)`);
    expect(await page.locator(`#deployments tr[data-deployment="${second.deploymentId}"]`).getAttribute('data-live')).toBe('true');
  });

  it("shows the deployment's rules from _redirects, _headers and the host options as rules, read-only", async () => {
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Rules of ${domain}`);
    const redirects = page.locator('#redirect-rules tbody tr');
    await expect.poll(() => redirects.count()).toBe(4);
    expect(await redirects.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-source')))).toEqual(['_redirects', '_redirects', '_redirects', 'configuration']);
    expect(await redirects.first().locator('td').allTextContents()).toEqual(['/old', '/new', '301 redirect', 'only where no file exists', '_redirects']);
    expect(await redirects.nth(1).locator('td[data-label=When]').textContent()).toBe('Language fr; only where no file exists');
    // As the file writes them, placeholders and all.
    expect(await redirects.nth(2).locator('td').allTextContents()).toEqual(['/blog/:lang:/*', '/posts/:lang:/:splat', '302 redirect', 'even where a file exists (!)', '_redirects']);
    expect(await redirects.nth(3).locator('td').allTextContents()).toEqual(['/docs', '/guide', '308 redirect', '', 'host options']);
    const headers = page.locator('#header-rules tbody tr');
    expect(await headers.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-source')))).toEqual(['configuration', '_headers']);
    expect(await headers.nth(1).locator('td').allTextContents()).toEqual(['/assets/*', '! X-Frame-Options (removed)Cache-Control: public, max-age=31536000', '_headers']);
    expect(await page.locator('#fallback-rules tbody tr td').allTextContents()).toEqual(['/404.html', '404', 'any request', 'default (no fallback names a 404 page)']);
    expect(await page.locator('#rules-deployment').textContent()).toMatch(/^Deployment [a-z2-7]{20} \(live\)\.$/);
    // Read-only: nothing on the screen changes them.
    expect(await page.locator('main button, main input, main textarea').count()).toBe(0);
    await shot('21-rules');

    // Each kept deployment's own: the first one's, from its row in the list.
    await open(`#/sites/${domain}`, domain);
    await page.getByRole('link', { name: `Rules of deployment ${first.deploymentId}` }).click();
    await expect.poll(() => page.locator('#rules-deployment').textContent()).toBe(`Deployment ${first.deploymentId}.`);
  });

  it('lists _redirects and _headers among the files as rules to view, not files to open or delete', async () => {
    await open(`#/sites/${domain}/files/`, `Files of ${domain}`);
    await expect.poll(() => page.locator('tbody th').allTextContents()).toEqual(['_headers', '_redirects', 'index.html', 'new.html']);
    for (const name of ['_redirects', '_headers']) {
      const row = page.locator(`tr[data-rules-file="${name}"]`);
      expect(await row.locator('td[data-label=Type]').textContent()).toBe('Rules, read when deployed (not served)');
      expect(await row.getByRole('button').count()).toBe(0);
      expect(await row.getByRole('link', { name: `View the rules of ${name}` }).getAttribute('href')).toBe(`#/sites/${domain}/rules`);
    }
    expect(await page.getByRole('button', { name: 'Delete /index.html' }).count()).toBe(1);
    await shot('22-files-with-rules');
    await page.getByRole('link', { name: '_redirects', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Rules of ${domain}`);
  });

  it("guides the configuration editor with the host schema's options and descriptions, and checks the text as it is typed", async () => {
    await open(`#/sites/${domain}/configuration`, `Configuration of ${domain}`);
    const guide = page.locator('#options-guide');
    await expect.poll(() => guide.locator('dt').allTextContents()).toEqual(Object.keys(hostSchema.properties));
    const fallbackText = await guide.locator('dt:has-text("fallback") + dd').textContent();
    expect(fallbackText).toContain(hostSchema.properties.fallback.description);
    expect(await guide.locator('dt:has-text("directories") + dd li').allTextContents()).toEqual([
      `resolve ${hostSchema.properties.directories.properties.resolve.description}`,
      `trailingSlash ${hostSchema.properties.directories.properties.trailingSlash.description}`,
    ]);

    const editor = page.getByLabel('Host options (JSON)');
    // Typed, not saved: the errors come as the typing pauses.
    await editor.fill('{\n  "fallback": 404\n}');
    await expect.poll(() => page.locator('#configuration-errors button[data-pointer="/fallback"]').count()).toBe(1);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    await editor.fill('{\n  "fallback": {"200": "/index.html"}\n}');
    await expect.poll(() => editor.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#configuration-errors').textContent()).toBe('');

    // What the text at the cursor is.
    const context = page.locator('#configuration-context');
    const moveTo = (text: string) => editor.evaluate((element: HTMLTextAreaElement, at) => element.setSelectionRange(element.value.indexOf(at) + 2, element.value.indexOf(at) + 2), text);
    await moveTo('"200"');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => context.textContent()).toBe(`fallback.200: ${'Path of the file served with this status code (2xx, 4xx or 5xx) when no file matches.'}`);
    await editor.fill('{\n  "fallbak": "/index.html"\n}');
    await moveTo('"fallbak"');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => context.textContent()).toBe('fallbak: not an option of the host schema.');
    await expect.poll(() => page.locator('#configuration-errors').textContent()).toContain('fallbak');
    await shot('23-configuration-guide');
  });

  it('suggests the one fallback form on the deploy page', async () => {
    await open('#/deploy', 'Deploy a site');
    const hint = await page.locator('#deploy-configuration-hint').textContent();
    expect(hint).toContain('{"fallback": {"200": "/index.html"}}');
    expect(hint).not.toContain('{"fallback": "/index.html"}');
  });

  it('writes sizes in the binary units the limits are set in', async () => {
    await open('#/', 'My sites');
    const storage = page.getByRole('region', { name: 'Your usage' }).locator('dd').nth(1);
    await expect.poll(() => storage.textContent()).toMatch(/^ [\d.]+ (B|KiB) of 10 GiB$/);
  });

  it("explains the hash that ends an alias's address, where the address is shown", async () => {
    await open(`#/deploy/${domain}`, 'Deploy a site');
    await page.locator('#folder').setInputFiles(folder.folder);
    await page.getByLabel('Preview only').check();
    await page.getByLabel('Alias (optional)').fill('feature-x');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect.poll(() => page.locator('#deploy-result-heading').textContent()).toBe(`Preview of ${domain}`);
    const address = (await page.locator('#alias-link').getAttribute('href'))!;
    const hash = /^http:\/\/feature-x--rules-example(-[a-z2-7]{13})\.preview\.localhost:\d+\/$/.exec(address)?.[1];
    expect(hash, address).toBeDefined();
    const note = `Alias addresses of ${domain} end in ${hash}, a hash of the domain: it keeps them apart from other sites' whose names read alike once dots become hyphens and long names are cut to fit one DNS label (a-b.com, a.b.com).`;
    expect(await page.locator('#alias-note').textContent()).toBe(note);
    await shot('24-alias-note');

    await page.getByRole('link', { name: 'Manage the site' }).click();
    await expect.poll(() => page.locator('#deployments #alias-note').textContent()).toBe(note);
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(pageProblems).toEqual([]);
  });
});
