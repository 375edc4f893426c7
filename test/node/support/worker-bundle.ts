/**
 * Global setup of the node project: the Worker bundled once (./bundle-worker.mjs), for every service a
 * test starts in Miniflare (./local-runtime.mjs) rather than each wrangler dev bundling it again. Made
 * in the background, like the migrated state (./migrated-state.ts); `workerBundle()` waits for it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readyFolder } from './ready-folder';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the Worker's bundle and Miniflare options, once made: read it with workerBundle(). */
    workerBundle: string;
  }
}

const bundler = new URL('./bundle-worker.mjs', import.meta.url).pathname;

/** Bundles the Worker into `folder` in a process of its own: why it failed, or undefined. */
function bundle(folder: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundler, folder], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve(String(error)));
    child.on('close', (code) => resolve(code === 0 ? undefined : `Bundling the Worker failed:\n${stderr}`));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-bundle-'));
  project.provide('workerBundle', folder);
  const made = bundle(folder).then((failure) => writeFile(join(folder, failure === undefined ? 'ready' : 'failed'), failure ?? ''));
  return async () => {
    await made;
    await rm(folder, { recursive: true, force: true });
  };
}

/** The folder of the Worker's bundle, once made; `folder` is what the set-up provided (a test file's by default). */
export function workerBundle(folder = inject('workerBundle')): Promise<string> {
  return readyFolder(folder, 'Bundling the Worker');
}
