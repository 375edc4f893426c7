// Builds the dashboard into dashboard/dist, the Worker's static assets (wrangler.toml `[assets]`):
//   dist/index.html, dist/dashboard/app.js (one bundle), dist/dashboard/app.css, dist/dashboard/icon.svg.
// wrangler runs it before `wrangler dev` and `wrangler deploy` (`[build] command`). Several
// wrangler processes may build at once (parallel tests), so every file is written to a temporary
// name and renamed into place: a reader sees the old file or the new one, never half of one.
import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const source = new URL('./src/', import.meta.url);
const out = new URL('./dist/', import.meta.url);
const temporary = (target) => `${target.pathname}.${process.pid}.tmp`;

async function writeAtomically(target, contents) {
  await writeFile(temporary(target), contents);
  await rename(temporary(target), target.pathname);
}

async function copyAtomically(from, target) {
  await copyFile(from, temporary(target));
  await rename(temporary(target), target.pathname);
}

await mkdir(new URL('./dashboard/', out), { recursive: true });
const bundle = await build({
  entryPoints: [new URL('./main.ts', source).pathname],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
await writeAtomically(new URL('./dashboard/app.js', out), bundle.outputFiles[0].contents);
await copyAtomically(new URL('./index.html', source), new URL('./index.html', out));
await copyAtomically(new URL('./app.css', source), new URL('./dashboard/app.css', out));
await copyAtomically(new URL('./icon.svg', source), new URL('./dashboard/icon.svg', out));
