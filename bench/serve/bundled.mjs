// Runs the service's own TypeScript in a bench's Node process: bench/serve/rules.mjs times its rule
// matching, bench/serve/protection-cost.mjs its protection check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const repo = new URL('../..', import.meta.url).pathname;

/** The module `contents` (TypeScript, its imports relative to the repository's root), bundled with esbuild for Node and imported. */
export async function importBundled(contents) {
  const workDir = mkdtempSync(join(tmpdir(), 'sitehost-bench-bundle-'));
  try {
    const entry = join(workDir, 'bundle.mjs');
    await build({ stdin: { contents, resolveDir: repo, loader: 'ts' }, outfile: entry, bundle: true, format: 'esm', platform: 'node', logLevel: 'warning' });
    return await import(entry);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
