/**
 * Global setup of the node project: the Worker bundled once (./bundle-worker.mjs), for every service a
 * test starts in Miniflare (./local-runtime.mjs) rather than each wrangler dev bundling it again. Made
 * in the background, like the migrated state (./migrated-state.ts); `workerBundle()` waits for it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readyFolder, runInBackground } from './ready-folder';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the Worker's bundle and Miniflare options, once made: read it with workerBundle(). */
    workerBundle: string;
  }
}

const bundler = new URL('./bundle-worker.mjs', import.meta.url).pathname;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-bundle-'));
  project.provide('workerBundle', folder);
  const made = runInBackground(folder, [bundler, folder], 'Bundling the Worker failed');
  return async () => {
    await made;
    await rm(folder, { recursive: true, force: true });
  };
}

/** The folder of the Worker's bundle, once made; `folder` is what the set-up provided (a test file's by default). */
export function workerBundle(folder = inject('workerBundle')): Promise<string> {
  return readyFolder(folder, 'Bundling the Worker');
}
