// `npm start`: the whole service on one laptop. Creates .dev.vars when missing, applies
// the D1 migrations the local database lacks, then runs wrangler dev (state in .wrangler/state).
// Environment: PORT (default 8787); SITEHOST_PERSIST_DIR keeps the local state elsewhere
// (tests and benchmarks use a temporary one); AUTH_SECRET, when set, is used instead of
// .dev.vars' (and .dev.vars is then neither created nor needed), and so is DOMAIN_PROOF_SECRET.
// It says in a few lines what it did and where it serves. Wrangler's own output goes whole to a log
// (.wrangler/logs/npm-start.log, or npm-start.log in SITEHOST_PERSIST_DIR); from the moment it
// serves, wrangler's lines (requests, queues, the Worker's logs) go to the terminal too. A start
// that fails prints wrangler's output in full.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { checkCertificateRetries, checkRateLimits } from '../src/platform/binding-checks.ts';
import { parseSettings } from '../src/platform/settings.ts';
import { ensureSecret, readDevVars } from './dev-vars.mjs';
import { announceServing, shown, startLog } from './start-output.mjs';
import { localWorkerdV8Flags } from './workerd-flags.mjs';
import { defaultPersistDir, migrateLocalDatabase, migrationNames } from './local-migrations.mjs';

const port = process.env.PORT ?? '8787';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };
// Local-runtime tuning only (./workerd-flags.mjs says why); a value set is kept.
env.MINIFLARE_WORKERD_V8_FLAGS ??= localWorkerdV8Flags;
const wrangler = new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname;
const persistDir = process.env.SITEHOST_PERSIST_DIR ?? defaultPersistDir;
// The secrets given in the environment; without AUTH_SECRET there, .dev.vars holds them (created when missing).
const secretVars = Object.fromEntries(['AUTH_SECRET', 'DOMAIN_PROOF_SECRET'].filter((name) => process.env[name]).map((name) => [name, process.env[name]]));
const secret = Object.entries(secretVars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);

if (!process.env.AUTH_SECRET) {
  const devVars = readDevVars();
  const created = ['AUTH_SECRET', 'DOMAIN_PROOF_SECRET'].filter((name) => !devVars[name]);
  for (const name of created) ensureSecret(name);
  if (created.length > 0) console.log(`Created ${created.join(' and ')} in .dev.vars, random: AUTH_SECRET signs the tokens npm run token prints, DOMAIN_PROOF_SECRET keys domain proofs.`);
}
checkSettings();

/**
 * Refuses a bad setting (wrangler.toml's vars, with the secrets wrangler dev reads from .dev.vars or
 * this script passes, and this command's `--var NAME:value`) before anything starts.
 */
function checkSettings() {
  // The top level of wrangler.toml, the local service's, read as TOML: loading wrangler here only to read it
  // cost about 1 CPU-second of every start, on top of the wrangler dev it starts.
  const config = parse(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8'));
  const vars = { ...config.vars, ...readDevVars(), ...secretVars };
  process.argv.forEach((arg, at, args) => {
    if (args[at - 1] !== '--var') return;
    const colon = arg.indexOf(':');
    vars[arg.slice(0, colon)] = arg.slice(colon + 1);
  });
  try {
    const certificates = config.queues?.consumers?.find((consumer) => consumer.queue === 'sitehost-certificates');
    const settings = parseSettings(vars);
    checkCertificateRetries(settings, certificates?.max_retries);
    checkRateLimits(settings, config.ratelimits ?? []);
  } catch (error) {
    console.error(`npm start: ${error.message}`);
    process.exit(1);
  }
}

const log = startLog(process.env.SITEHOST_PERSIST_DIR ? join(persistDir, 'npm-start.log') : join(dirname(defaultPersistDir), 'logs/npm-start.log'));
const migrated = migrateLocalDatabase(persistDir, env);
log.write(migrated.output);
if (!migrated.ok) {
  process.stderr.write(`${migrated.output}npm start: applying the D1 migrations failed (wrangler's output above)\n`);
  process.exit(1);
}
console.log(
  migrated.applied > 0
    ? `Applied ${migrated.applied} D1 migrations to the local database (${shown(persistDir)}).`
    : `The local database (${shown(persistDir)}) has all ${migrationNames().length} D1 migrations.`,
);
console.log(`Starting wrangler dev; its whole output: ${log.name}`);

const dev = spawn(
  process.execPath,
  [wrangler, 'dev', '--port', port, '--show-interactive-dev-session=false', '--persist-to', persistDir, ...secret, ...process.argv.slice(2)],
  { env, stdio: ['inherit', 'pipe', 'pipe'] },
);
log.follow(dev, announceServing);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code, signal) => {
  if (!log.ready()) process.stderr.write(`${log.held()}npm start: wrangler dev stopped before it served (its output above, also in ${log.name})\n`);
  process.exit(code ?? (signal ? 1 : 0));
});
