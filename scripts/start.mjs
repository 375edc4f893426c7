// `npm start`: the whole service on one laptop. Creates .dev.vars when missing, applies
// the D1 migrations to the local database, then runs wrangler dev (state in .wrangler/state).
import { spawn, spawnSync } from 'node:child_process';
import { ensureAuthSecret } from './dev-vars.mjs';

const port = process.env.PORT ?? '8787';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };
const wrangler = new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname;

ensureAuthSecret();

const migrate = spawnSync(process.execPath, [wrangler, 'd1', 'migrations', 'apply', 'DB', '--local'], {
  env: { ...env, CI: 'true' },
  stdio: 'inherit',
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const dev = spawn(process.execPath, [wrangler, 'dev', '--port', port, '--show-interactive-dev-session=false', ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
