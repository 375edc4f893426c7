import { env } from 'cloudflare:workers';

/**
 * Applies the D1 migrations (vitest.config.ts reads them into TEST_MIGRATIONS) to each test file's
 * fresh database, as `applyD1Migrations` of `cloudflare:test` does, with the same table. Not through
 * `cloudflare:test`: importing it loads the whole Worker (the plugin appends an import of `main`),
 * about 1.6 s of CPU per file, which the files that never touch the Worker should not pay.
 */
const migrationsTable = 'd1_migrations';
await env.DB.prepare(
  `CREATE TABLE IF NOT EXISTS ${migrationsTable} (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
).run();
const applied = new Set((await env.DB.prepare(`SELECT name FROM ${migrationsTable}`).all<{ name: string }>()).results.map(({ name }) => name));
for (const migration of env.TEST_MIGRATIONS) {
  if (applied.has(migration.name)) continue;
  await env.DB.batch([
    ...migration.queries.map((query) => env.DB.prepare(query)),
    env.DB.prepare(`INSERT INTO ${migrationsTable} (name) VALUES (?)`).bind(migration.name),
  ]);
}
