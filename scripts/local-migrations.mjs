// Applies the D1 migrations to a local database (wrangler d1 migrations apply --local), unless the
// database already holds every migration of schema/migrations as they are now. The check is a
// record the apply leaves beside the database: a restart of `npm start` with nothing new skips
// starting a second wrangler and runtime only to learn that nothing is to be done.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const wrangler = join(repo, 'node_modules/wrangler/bin/wrangler.js');
const migrations = join(repo, 'schema/migrations');

/** Wrangler's own default for `--persist-to`. */
export const defaultPersistDir = join(repo, '.wrangler/state');

/** The migrations' file names, in the order they apply. */
export function migrationNames() {
  return readdirSync(migrations).filter((file) => file.endsWith('.sql')).sort();
}

/** Every migration's name and content, hashed: what the database holds once they are applied. */
export function migrationsDigest() {
  const hash = createHash('sha256');
  for (const name of migrationNames()) hash.update(name).update('\0').update(readFileSync(join(migrations, name))).update('\0');
  return hash.digest('hex');
}

/**
 * The record lives in the local D1 folder itself, so deleting the local database (or the
 * whole state folder) deletes the record with it.
 */
function recordPath(persistDir) {
  return join(persistDir, 'v3/d1/sitehost-migrations.sha256');
}

function applied(persistDir, digest) {
  try {
    return readFileSync(recordPath(persistDir), 'utf8') === digest;
  } catch {
    return false;
  }
}

/**
 * Applies what is missing, wrangler's output captured: `{ ok, applied, output }`, `applied` the
 * number of migrations wrangler applied (0 when the record shows none is missing), `output` what
 * it printed (for a log, or to show in full when it failed).
 */
export function migrateLocalDatabase(persistDir = defaultPersistDir, env = process.env) {
  const digest = migrationsDigest();
  if (applied(persistDir, digest)) return { ok: true, applied: 0, output: '' };
  const migrate = spawnSync(process.execPath, [wrangler, 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistDir], {
    cwd: repo,
    env: { ...env, CI: 'true' },
    encoding: 'utf8',
  });
  const output = `${migrate.stdout ?? ''}${migrate.stderr ?? ''}${migrate.error ? `${migrate.error}\n` : ''}`;
  if (migrate.status !== 0) return { ok: false, applied: 0, output };
  mkdirSync(join(persistDir, 'v3/d1'), { recursive: true });
  writeFileSync(recordPath(persistDir), digest);
  // "About to apply 10 migration(s)"; wrangler says "No migrations to apply" when the database had them.
  return { ok: true, applied: Number(/About to apply (\d+) migration/.exec(output)?.[1] ?? 0), output };
}

/** Applies what is missing; answers false when wrangler failed, after printing what it said. */
export function applyLocalMigrations(persistDir = defaultPersistDir, env = process.env) {
  const { ok, output } = migrateLocalDatabase(persistDir, env);
  if (!ok) process.stderr.write(output);
  return ok;
}
