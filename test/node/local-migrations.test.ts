/**
 * The one migration applier (scripts/local-migrations.mjs: `wrangler d1 migrations apply --local`),
 * which `npm start`, the black-box tests' state and every bench use: what it makes of an empty
 * database is the schema the Worker expects, the workers tests' databases get the same, and
 * `npm start` skips starting wrangler for a database that holds every migration as it is now.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { readD1Migrations } from '@cloudflare/vitest-plugin';
import { afterEach, expect, it } from 'vitest';
import { copyMigratedState } from './support/migrated-state';
import { workerStatements } from './support/worker-statements';
// @ts-expect-error -- a plain ES module of the repository's scripts, without type declarations.
import { applyLocalMigrations } from '../../scripts/local-migrations.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const apply = applyLocalMigrations as (persistDir: string, env: NodeJS.ProcessEnv) => boolean;
/** An environment in which starting wrangler fails at once: what shows whether it was started. */
const wranglerFails = { ...process.env, NODE_OPTIONS: '--no-such-node-flag' };
let state: string;

afterEach(() => rm(state, { recursive: true, force: true }));

/** The SQLite file of the local D1 database in a state folder (wrangler's layout under --persist-to). */
function databaseFile(persistDir: string): string {
  const folder = join(persistDir, 'v3/d1/miniflare-D1DatabaseObject');
  const files = readdirSync(folder).filter((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite');
  expect(files).toHaveLength(1);
  return join(folder, files[0]!);
}

/**
 * The tables (with their columns), indexes and triggers, as SQLite keeps their definitions (an
 * added column is in its table's), in a stable order; without the applier's own table of applied
 * migrations and the runtime's tables.
 */
function schemaOf(db: DatabaseSync): string {
  const order = ['table', 'index', 'trigger', 'view'];
  const objects = db
    .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND tbl_name <> 'd1_migrations'")
    .all() as { type: string; name: string; sql: string }[];
  objects.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type) || a.name.localeCompare(b.name));
  const header =
    '-- The schema schema/migrations make, applied in order to an empty database by scripts/local-migrations.mjs.\n' +
    '-- test/node/local-migrations.test.ts compares it with what they make now; after adding a migration, rewrite it:\n' +
    '--   npx vitest run test/node/local-migrations.test.ts --update\n';
  return `${header}\n${objects.map(({ sql }) => `${sql};\n`).join('\n')}`;
}

it('makes of an empty database the schema the Worker expects: the checked-in one, and every table and column its statements name', async () => {
  state = await mkdtemp(join(tmpdir(), 'sitehost-migrations-'));
  // The node project's state: every migration applied by migrateLocalDatabase to an empty state (support/migrated-state.ts).
  await copyMigratedState(state);
  const db = new DatabaseSync(databaseFile(state), { readOnly: true });
  try {
    await expect.soft(schemaOf(db)).toMatchFileSnapshot('../../schema/expected-schema.sql');
    // SQLite resolves every table and column a statement names when it prepares it.
    const { statements, unresolved } = workerStatements(repo);
    expect(statements.length).toBeGreaterThan(4 * unresolved.length);
    const refused = statements.flatMap(({ at, sql }) => {
      try {
        db.prepare(sql);
        return [];
      } catch (error) {
        return [`${at}: ${(error as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  } finally {
    db.close();
  }
});

it('gives the workers tests the same schema: the statements readD1Migrations splits the migrations into, run in order', async () => {
  // test/support/apply-migrations.ts runs these in each workers test file's database, one batch a migration.
  const db = new DatabaseSync(':memory:');
  try {
    for (const { queries } of await readD1Migrations(join(repo, 'schema/migrations'))) for (const query of queries) db.exec(query);
    await expect(schemaOf(db)).toMatchFileSnapshot('../../schema/expected-schema.sql');
  } finally {
    db.close();
  }
});

it('starts no wrangler for a database that holds every migration, and applies again when the record is gone or stale', async () => {
  state = await mkdtemp(join(tmpdir(), 'sitehost-migrations-'));
  await copyMigratedState(state);
  expect(apply(state, wranglerFails)).toBe(true);

  await writeFile(join(state, 'v3/d1/sitehost-migrations.sha256'), 'a record of other migrations');
  expect(apply(state, wranglerFails)).toBe(false);

  await rm(join(state, 'v3/d1/sitehost-migrations.sha256'));
  expect(apply(state, wranglerFails)).toBe(false);
});
