// `npm run deploy:check`: bundles the Worker as `wrangler deploy` would (--dry-run: nothing is
// uploaded, no account is needed) and fails when the bundle is over the free plan's 3 MB
// compressed limit.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const limitBytes = 3 * 1000 * 1000;
const wrangler = new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname;
const outdir = mkdtempSync(join(tmpdir(), 'sitehost-bundle-'));

try {
  const build = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0) process.exit(build.status ?? 1);

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
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
