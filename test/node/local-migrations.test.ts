/**
 * `npm start` applies the D1 migrations a local database lacks, and skips starting wrangler
 * for them when the database holds every migration as it is now (scripts/local-migrations.mjs).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { copyMigratedState } from './support/migrated-state';
// @ts-expect-error -- a plain ES module of the repository's scripts, without type declarations.
import { applyLocalMigrations } from '../../scripts/local-migrations.mjs';

const apply = applyLocalMigrations as (persistDir: string, env: NodeJS.ProcessEnv) => boolean;
/** An environment in which starting wrangler fails at once: what shows whether it was started. */
const wranglerFails = { ...process.env, NODE_OPTIONS: '--no-such-node-flag' };
let state: string;

afterEach(() => rm(state, { recursive: true, force: true }));

it('starts no wrangler for a database that holds every migration, and applies again when the record is gone or stale', async () => {
  state = await mkdtemp(join(tmpdir(), 'sitehost-migrations-'));
  await copyMigratedState(state);
  expect(apply(state, wranglerFails)).toBe(true);

  await writeFile(join(state, 'v3/d1/sitehost-migrations.sha256'), 'a record of other migrations');
  expect(apply(state, wranglerFails)).toBe(false);

  await rm(join(state, 'v3/d1/sitehost-migrations.sha256'));
  expect(apply(state, wranglerFails)).toBe(false);
});
