/**
 * Global setup of the node project: one headless Chromium for every file that drives a browser,
 * launched in the background (Debian's, `apt-get install chromium`; Playwright downloads none). Each
 * file opens a context of its own in it (`openBrowser()` in test/node/dashboard/browser.ts): its own
 * cookies, storage and permissions, as a fresh profile had, without a browser start (about 1.1
 * CPU-s and a dozen processes) for each of the eight files.
 */
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserServer, chromium } from 'playwright-core';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readyFolder } from './ready-folder';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where the Chromium's endpoint is written once it runs: read it with chromiumEndpoint(). */
    chromiumServer: string;
  }
}

/** Debian's Chromium, or CHROMIUM_PATH. */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Quiet: no background traffic, no QUIC, no sandbox (root in CI). */
async function launch(): Promise<BrowserServer> {
  await access(chromiumPath).catch(() => {
    throw new Error(`No Chromium at ${chromiumPath}: install Debian's (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH.`);
  });
  return chromium.launchServer({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-chromium-'));
  project.provide('chromiumServer', folder);
  const launched = launch().then(
    async (server) => {
      await writeFile(join(folder, 'endpoint'), server.wsEndpoint());
      await writeFile(join(folder, 'ready'), '');
      return server;
    },
    async (error: unknown) => {
      await writeFile(join(folder, 'failed'), error instanceof Error ? error.message : String(error));
      return undefined;
    },
  );
  return async () => {
    await (await launched)?.close();
    await rm(folder, { recursive: true, force: true });
  };
}

/** The run's Chromium's endpoint for `chromium.connect()`, once it runs. */
export async function chromiumEndpoint(): Promise<string> {
  const folder = await readyFolder(inject('chromiumServer'), 'Launching Chromium');
  return readFile(join(folder, 'endpoint'), 'utf8');
}
