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
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readyFolder, runInBackground } from './ready-folder';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the migrated state (`state`), once it is made: copy it with copyMigratedState(), never write to it. */
    migratedState: string;
  }
}

const localMigrations = new URL('../../../scripts/local-migrations.mjs', import.meta.url).href;

/** The script that applies the migrations to the state named by its argument (it waits on wrangler). */
const migrate = `const { migrateLocalDatabase } = await import(${JSON.stringify(localMigrations)});
const { ok, output } = migrateLocalDatabase(process.argv[1]);
if (!ok) process.stderr.write(output);
process.exitCode = ok ? 0 : 1;`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-migrated-'));
  project.provide('migratedState', folder);
  const made = runInBackground(folder, ['--input-type=module', '-e', migrate, join(folder, 'state')], 'Applying the D1 migrations to a local state failed (wrangler printed why)', {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
  });
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
