// `npm run deploy:check`: what can be checked of a production deploy without an account.
// - Bundles the Worker as `wrangler deploy --env production` would (--dry-run: nothing is uploaded,
//   no network is needed) and fails when wrangler does, or when the bundle is over the free
//   plan's 3 MB compressed limit.
// - Checks [env.production] (scripts/production-config.ts): every var and binding of the top level
//   repeated, a dead-letter queue for every queue, the settings as the Worker checks them.
// - Lists the placeholders still to fill in (`<api-hostname>`, or the local all-zero database id);
//   they do not fail the check: the repository ships them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { checkProduction, readConfigs } from './production-config.ts';

const limitBytes = 3 * 1000 * 1000;
const wrangler = new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname;
const outdir = mkdtempSync(join(tmpdir(), 'sitehost-bundle-'));

try {
  const build = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--env', 'production', '--outdir', outdir], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0) {
    console.error('deploy:check: `wrangler deploy --dry-run --env production` failed.');
    process.exit(build.status ?? 1);
  }

  // Every module wrangler would upload: not the source maps, nor the README it writes beside them.
  const modules = readdirSync(outdir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.map') && !(entry.parentPath === outdir && entry.name === 'README.md'))
    .map((entry) => join(entry.parentPath, entry.name));
  let raw = 0;
  let compressed = 0;
  for (const file of modules) {
    const bytes = readFileSync(file);
    raw += bytes.byteLength;
    compressed += gzipSync(bytes, { level: 9 }).byteLength;
  }
  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(`bundle: ${modules.length} module(s), ${kib(raw)} raw, ${kib(compressed)} gzip (limit ${limitBytes / 1e6} MB)`);
  if (compressed > limitBytes) {
    console.error(`The compressed bundle is over the free plan's ${limitBytes / 1e6} MB limit.`);
    process.exitCode = 1;
  }

  const { problems, placeholders } = checkProduction(readConfigs());
  for (const problem of problems) console.error(`production: ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
  else console.log('production: every var and binding repeated, a dead-letter queue for every queue, the settings pass');
  if (placeholders.length > 0) {
    console.log(`production: ${placeholders.length} placeholder(s) to fill in before \`wrangler deploy --env production\` (docs/operating.md):`);
    for (const found of placeholders) console.log(`  ${found}`);
  } else {
    console.log('production: no placeholder left');
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
