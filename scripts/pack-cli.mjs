// `npm run pack:cli`: the `sitehost` command as a package that installs anywhere (`npm i -g
// <tarball>`) and runs on Node.js 20 and later, which cannot run TypeScript. esbuild compiles
// cli/ (and the parts of src/common it uses) into ES modules, one chunk per command as they load;
// the package's third-party dependencies stay dependencies, installed by npm. The package is
// cli/package.json (name, bin, files, dependencies, engines) and cli/README.md around that build,
// packed by `npm pack` in a folder of its own; the tarball goes to build/, and its path is the last
// line printed. Layout: docs/cli.md, "Installing". The Worker's build packs it too, and serves it
// (scripts/build-cli-module.mjs).
import { execFileSync } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = new URL('..', import.meta.url).pathname;
const cli = join(repo, 'cli');

/** Packs the CLI into `out`: answers the tarball's path, the package's name and version, its size and files. */
export async function packCli(out = join(repo, 'build')) {
  // A folder of its own per run: packs running at once (tests, the bench) do not meet.
  const staging = await mkdtemp(join(tmpdir(), 'sitehost-cli-pack-'));
  try {
    await copyFile(join(cli, 'package.json'), join(staging, 'package.json'));
    await copyFile(join(cli, 'README.md'), join(staging, 'README.md'));
    await build({
      entryPoints: { sitehost: join(cli, 'entry.ts') },
      outdir: join(staging, 'dist'),
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // Installed by npm from the registry, as cli/package.json lists them.
      packages: 'external',
      logLevel: 'warning',
    });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', staging], { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    await mkdir(out, { recursive: true });
    const tarball = join(out, packed.filename);
    // Copied beside its place, then renamed: a reader never sees half a tarball.
    const partial = `${tarball}.${process.pid}.partial`;
    await cp(join(staging, packed.filename), partial);
    await rename(partial, tarball);
    return { tarball, name: packed.name, version: packed.version, size: packed.size, entryCount: packed.entryCount };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packed = await packCli();
  console.log(`${packed.name}@${packed.version}: ${packed.entryCount} files, ${packed.size} bytes packed`);
  console.log(packed.tarball);
}
