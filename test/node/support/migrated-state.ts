/**
 * Global setup of the node project: one local state with every D1 migration applied, made once.
 * Each service a test starts copies it (`startService`), so `npm start`'s script finds its
 * database migrated and starts wrangler dev at once, rather than each service starting a second
 * wrangler and runtime first to apply the same migrations.
 *
 * It is made in the background (a wrangler and a runtime, about 10 s): Vitest starts no test file
 * before every global set-up has returned, so the other projects' files run meanwhile, and
 * `copyMigratedState()` waits until it is made (`ready` in the provided folder, or `failed`).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readyFolder } from './ready-folder';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the migrated state (`state`), once it is made: copy it with copyMigratedState(), never write to it. */
    migratedState: string;
  }
}

const localMigrations = new URL('../../../scripts/local-migrations.mjs', import.meta.url).href;

/** Applies the migrations to `state` in a process of its own (the script waits on wrangler): why it failed, or undefined. */
function migrate(state: string): Promise<string | undefined> {
  const script = `const { migrateLocalDatabase } = await import(${JSON.stringify(localMigrations)});
const { ok, output } = migrateLocalDatabase(process.argv[1]);
if (!ok) process.stderr.write(output);
process.exitCode = ok ? 0 : 1;`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, state], {
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve(String(error)));
    child.on('close', (code) => resolve(code === 0 ? undefined : `Applying the D1 migrations to a local state failed (wrangler printed why):\n${stderr}`));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-migrated-'));
  project.provide('migratedState', folder);
  const made = migrate(join(folder, 'state')).then((failure) => writeFile(join(folder, failure === undefined ? 'ready' : 'failed'), failure ?? ''));
  return async () => {
    await made;
    await rm(folder, { recursive: true, force: true });
  };
}

/** Copies the migrated state into `to` once it is made; `folder` is what the set-up provided (a test file's by default). */
export async function copyMigratedState(to: string, folder = inject('migratedState')): Promise<void> {
  await readyFolder(folder, 'The migrated local state');
  await cp(join(folder, 'state'), to, { recursive: true });
}
