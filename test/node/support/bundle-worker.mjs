// Bundles the Worker once for every service the node project starts (./worker-bundle.ts), as `wrangler
// deploy` would: the [build] command, then wrangler's own esbuild bundle (`--dry-run --outdir`), and
// writes the Miniflare options wrangler derives from wrangler.toml (bindings, vars, Durable Objects,
// queues, crons) beside it, for ./local-runtime.mjs. Usage: node bundle-worker.mjs <folder>.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';

const folder = process.argv[2];
const repo = new URL('../../..', import.meta.url).pathname;
const wrangler = join(repo, 'node_modules/wrangler/bin/wrangler.js');
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };

const built = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', join(folder, 'bundle')], { cwd: repo, env, encoding: 'utf8' });
if (built.status !== 0) {
  process.stderr.write(`wrangler deploy --dry-run failed:\n${built.stdout}${built.stderr}`);
  process.exit(1);
}
// The bundle is one module: rules for finding more modules (modulesRules, rootPath) do not apply to
// it, and Miniflare's conversion of these options refuses them; no connect handler is configured.
const { modulesRules, rootPath, connectHandlers, ...worker } = unstable_getMiniflareWorkerOptions(join(repo, 'wrangler.toml')).workerOptions;
writeFileSync(join(folder, 'options.json'), JSON.stringify(worker));
