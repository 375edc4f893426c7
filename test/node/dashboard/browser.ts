import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (`apt-get install chromium`); Playwright downloads no browser here. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile, quiet: no background traffic, no QUIC, no sandbox (root in CI). */
export async function launchChromium(): Promise<Browser> {
  await access(chromiumPath).catch(() => {
    throw new Error(`No Chromium at ${chromiumPath}: install Debian's (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH.`);
  });
  const profile = await mkdtemp(join(tmpdir(), 'sitehost-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1100, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
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
