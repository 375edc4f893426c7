/**
 * The dashboard's Tokens page as a person uses it: Debian's Chromium, driven by playwright-core,
 * against the real service under `wrangler dev`. A screenshot goes to test-results/dashboard/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { type Browser, openBrowser } from './browser';

const screenshots = new URL('../../../test-results/dashboard/', import.meta.url).pathname;
const domain = 'tokens-dash.example';

let service: RunningService;
let browser: Browser;
let page: Page;
let signedIn: string;
const pageProblems: string[] = [];

const whoami = (bearer: string) => fetch(`${service.origin}/v2/whoami`, { headers: { authorization: `Bearer ${bearer}` } });

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [service, browser] = await Promise.all([sharedService(), openBrowser()]);
  signedIn = await token(service, 'github|dashboard-tokens', 'deploy');
  const form = new FormData();
  form.append('directory', new File(['<h1>tokens</h1>'], 'index.html'));
  const deployed = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${signedIn}` }, body: form });
  expect(deployed.status).toBe(200);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.origin });
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageProblems.push(String(error)));
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) pageProblems.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the Tokens page', () => {
  it('makes a token shown once with a copy button, lists it with its last use, revokes it, and signs out everywhere', async () => {
    await page.goto(service.origin);
    await page.getByLabel('API token').fill(signedIn);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Tokens', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('API tokens');
    await expect.poll(() => page.getByText('You have no API tokens.').count()).toBe(1);

    await page.getByLabel('Name').fill('CI of tokens-dash');
    await page.getByLabel('Limit to sites').fill(domain);
    await page.getByLabel('Expires in (days)').fill('30');
    await page.getByRole('button', { name: 'Make token' }).click();
    const secretField = page.getByLabel('New token');
    await expect.poll(() => secretField.count()).toBe(1);
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^sitehost_[0-9A-Za-z]{36}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByText('Copied.').count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const row = page.locator('tbody tr', { hasText: 'CI of tokens-dash' });
    await expect.poll(() => row.locator('[data-label="Last used"]').textContent()).toBe('never');
    expect(await row.locator('[data-label="Sites"]').textContent()).toBe(domain);
    expect(await row.locator('[data-label="Scopes"]').textContent()).toBe('deploy');
    await page.screenshot({ path: join(screenshots, 'tokens.png'), fullPage: true });

    // The token works, and the page shows its use once the service has recorded it.
    expect((await whoami(secret)).status).toBe(200);
    await expect
      .poll(async () => {
        await page.goto(`${service.origin}/#/sites`);
        await page.goto(`${service.origin}/#/tokens`);
        return row.locator('[data-label="Last used"]').textContent();
      })
      .not.toBe('never');
    // Shown once: a new visit of the page has no secret in it.
    expect(await page.content()).not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.locator('dialog[open] h2').textContent()).toBe('Revoke “CI of tokens-dash”?');
    await page.locator('dialog[open]').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await whoami(secret)).status).toBe(401);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => page.getByLabel('API token').count()).toBe(1);
    expect((await whoami(signedIn)).status).toBe(401);
    expect(pageProblems).toEqual([]);
  });
});
