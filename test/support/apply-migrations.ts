import { env } from 'cloudflare:workers';

/**
 * Applies the D1 migrations to each test file's fresh database in the runtime, where no wrangler
 * can run: the statement lists are `readD1Migrations`' (vitest.config.ts puts them in
 * TEST_MIGRATIONS), split by wrangler's own splitter, which `wrangler d1 migrations apply --local`
 * (scripts/local-migrations.mjs, the applier of `npm start`, the black-box tests and the benches)
 * runs on each file too; applied one batch a migration with the same table of applied ones, as
 * `applyD1Migrations` of `cloudflare:test` does. Not through `cloudflare:test`: importing it loads
 * the whole Worker (the plugin appends an import of `main`), about 1.6 s of CPU per file, which the
 * files that never touch the Worker should not pay.
 */
const migrationsTable = 'd1_migrations';

/** Applies the migrations `db` has not applied yet. */
async function migrate(db: D1Database): Promise<void> {
  await db.prepare(
    `CREATE TABLE IF NOT EXISTS ${migrationsTable} (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
  ).run();
  const applied = new Set((await db.prepare(`SELECT name FROM ${migrationsTable}`).all<{ name: string }>()).results.map(({ name }) => name));
  for (const migration of env.TEST_MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    await db.batch([
      ...migration.queries.map((query) => db.prepare(query)),
      db.prepare(`INSERT INTO ${migrationsTable} (name) VALUES (?)`).bind(migration.name),
    ]);
  }
}

await migrate(env.DB);
await migrate(env.TEST_WHOLE_TABLE_DB);
