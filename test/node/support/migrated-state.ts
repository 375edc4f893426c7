/**
 * Global setup of the node project: one local state with every D1 migration applied, made
 * once. Each service a test starts copies it (`startService`), so `npm start`'s script finds
 * its database migrated and starts wrangler dev at once, rather than each service starting a
 * second wrangler and runtime first to apply the same migrations.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ES module of the repository's scripts, without type declarations.
import { applyLocalMigrations } from '../../../scripts/local-migrations.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A local state folder whose D1 database holds every migration; copy it, never write to it. */
    migratedState: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = await mkdtemp(join(tmpdir(), 'sitehost-migrated-'));
  if (!(applyLocalMigrations(state, { ...process.env, WRANGLER_SEND_METRICS: 'false' }) as boolean)) {
    throw new Error('Applying the D1 migrations to a local state failed (wrangler printed why).');
  }
  project.provide('migratedState', state);
  return () => rm(state, { recursive: true, force: true });
}
