import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { chromiumEndpoint } from '../support/chromium-server';

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh context (cookies, storage, permissions of its own) in the run's Chromium (../support/chromium-server.ts). */
export async function openBrowser(): Promise<Browser> {
  const browser = await chromium.connect(await chromiumEndpoint());
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  return {
    context,
    close: async () => {
      await context.close();
      await browser.close();
    },
  };
}

/** A new tab (its own session) signed in to the dashboard at `origin` with `bearer`, on "My sites"; its page errors and Content-Security-Policy reports go to `problems`. */
export async function signedInTab(browser: Browser, origin: string, bearer: string, problems: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) problems.push(message.text());
  });
  await page.goto(origin);
  await page.getByLabel('API token').fill(bearer);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.locator('h1').textContent()).toBe('My sites');
  return page;
}
