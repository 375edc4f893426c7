import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResettingRelay } from './cli/resetting-relay';
import { getFromSite, type RunningService, sharedService, token } from './support/service';

/**
 * The `sitehost` command as people install it (docs/cli.md, "Installing"): from the running
 * service, `npm install --global <origin>/cli/sitehost-cli.tgz` (the package the Worker's build
 * packs), into an empty prefix, by the machine's own npm on its Node.js 20, which cannot run
 * TypeScript; then run from a folder outside the repository.
 */

const repo = new URL('../..', import.meta.url).pathname;
const run = promisify(execFile);
const cliVersion = (JSON.parse(readFileSync(join(repo, 'cli', 'package.json'), 'utf8')) as { version: string }).version;
/** The Node.js that Linux distributions ship: Debian's, on this machine. */
const node20 = '/usr/bin/node';

let service: RunningService;
let work: string;
let prefix: string;
let tarball: string;
/** Only Node 20 and npm on the PATH: the package's `#!/usr/bin/env node` finds Node 20. */
let path: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-package-'));
  prefix = join(work, 'prefix');
  const npm = await realpath(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  path = [dirname(node20), dirname(npm), '/bin'].join(':');
  service = await sharedService();
  // From the npm cache when it holds the dependencies (they are the repository's own), else from the registry.
  execFileSync(npm, ['install', '--global', '--prefix', prefix, `${service.origin}/cli/sitehost-cli.tgz`, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: work,
    env: { ...process.env, PATH: path },
    stdio: 'pipe',
  });
  tarball = join(work, 'sitehost-cli.tgz');
  const downloaded = await fetch(`${service.origin}/cli/sitehost-cli.tgz`);
  expect(downloaded.status).toBe(200);
  await writeFile(tarball, Buffer.from(await downloaded.arrayBuffer()));
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs the installed `sitehost` on Node 20, from `cwd`, as a CI job does; not blocking, since a relay of this process may stand between it and the service. */
async function installed(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const options = { cwd, env: { PATH: path, HOME: work, XDG_CACHE_HOME: join(work, 'cache'), NO_COLOR: '1', ...env }, encoding: 'utf8' as const };
  try {
    const { stdout, stderr } = await run(join(prefix, 'bin', 'sitehost'), args, options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the packed CLI', () => {
  it('is compiled JavaScript with its own package.json, bin and only its run-time dependencies', async () => {
    expect(execFileSync('env', ['node', '--version'], { env: { PATH: path }, encoding: 'utf8' })).toMatch(/^v20\./);
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/sitehost.mjs']));
    expect(listed.filter((entry) => !/^package\/(package\.json|README\.md|dist\/.+\.mjs)$/.test(entry))).toEqual([]);

    const root = join(prefix, 'lib', 'node_modules');
    expect(await readdir(root)).toEqual(['sitehost-cli']);
    const manifest = JSON.parse(await readFile(join(root, 'sitehost-cli', 'package.json'), 'utf8')) as { bin: unknown; engines: unknown; dependencies: Record<string, string> };
    expect(manifest.bin).toEqual({ sitehost: 'dist/sitehost.mjs' });
    expect(manifest.engines).toEqual({ node: '>=20' });
    const modules = await readdir(join(root, 'sitehost-cli', 'node_modules'));
    for (const dependency of Object.keys(manifest.dependencies)) expect(modules).toContain(dependency);
    for (const devOnly of ['wrangler', 'vitest', 'typescript', 'esbuild', 'hono']) expect(modules).not.toContain(devOnly);
  });

  it('is the version the service names, its bytes those GET /v2/info names', async () => {
    const version = JSON.parse(await readFile(join(repo, 'cli', 'package.json'), 'utf8')).version as string;
    const info = (await (await fetch(`${service.origin}/v2/info`)).json()) as { version: string; cli: { version: string; url: string; integrity: string } };
    expect(info).toEqual({ version, cli: { version, url: `${service.origin}/cli/sitehost-cli-${version}.tgz`, integrity: expect.stringMatching(/^sha512-/) } });
    expect(`sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`).toBe(info.cli.integrity);
    const manifest = JSON.parse(await readFile(join(prefix, 'lib', 'node_modules', 'sitehost-cli', 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version).toBe(version);
  });

  it('installs into an empty prefix and deploys on Node 20 from a folder outside the repository', async () => {
    const version = JSON.parse(await readFile(join(repo, 'cli', 'package.json'), 'utf8')).version as string;
    expect((await installed(['--version'], work)).stdout).toBe(`sitehost-cli ${version}\nservice: none known (sitehost login, or SITEHOST_ORIGIN, names one)\n`);
    expect((await installed(['--version'], work, { SITEHOST_ORIGIN: service.origin })).stdout).toBe(`sitehost-cli ${version}\nservice ${version} at ${service.origin}\n`);
    expect(JSON.parse((await installed(['--version', '--json'], work, { SITEHOST_ORIGIN: service.origin })).stdout)).toEqual({ cli: version, service: { origin: service.origin, version } });

    const site = join(work, 'site');
    await mkdir(join(site, 'css'), { recursive: true });
    await writeFile(join(site, 'index.html'), '<h1>Installed</h1>');
    await writeFile(join(site, 'css', 'site.css'), 'body{}');
    const env = { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: await token(service, 'github|ci', 'deploy') };

    const deploy = await installed(['deploy', '--dir', '.', '--domain', 'packed.example', '--prod', '--message', 'from the package', '--json'], site, env);
    expect(deploy.code, deploy.stderr).toBe(0);
    const result = JSON.parse(deploy.stdout) as { id: string; url: string };
    expect(result).toMatchObject({ type: 'site-deploy', domain: 'packed.example', url: `http://packed.example.localhost:${service.port}/` });
    expect(await getFromSite(service, 'packed.example', '/index.html')).toEqual({ status: 200, body: '<h1>Installed</h1>' });
    expect(await getFromSite(service, 'packed.example', '/css/site.css')).toEqual({ status: 200, body: 'body{}' });

    const listed = JSON.parse((await installed(['deployments', 'packed.example', '--json'], site, env)).stdout) as unknown[];
    expect(listed).toEqual([expect.objectContaining({ id: result.id, message: 'from the package', client: 'cli', live: true })]);
    expect(JSON.parse((await installed(['whoami', '--json'], site, env)).stdout)).toMatchObject({ userId: 'github|ci', scopes: ['deploy'] });
    const refused = await installed(['deployments', 'nowhere.example', '--json'], site, env);
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr)).toMatchObject({ status: 404, exitCode: 4 });
  });
});

describe('a CLI older than the service', () => {
  it("says so once, on standard error, with the command that installs the service's own", async () => {
    const relay = await startResettingRelay(service.port, { serviceVersion: '99.0.0', failFirst: () => 'pass' });
    try {
      const env = { SITEHOST_ORIGIN: relay.origin, SITEHOST_TOKEN: await token(service, 'github|ci-old', 'deploy') };
      const site = join(work, 'old-cli-site');
      await mkdir(site, { recursive: true });
      await writeFile(join(site, 'index.html'), 'old CLI');
      const deploy = await installed(['deploy', '.', '--domain', 'packed-old.example'], site, env);
      expect(deploy.code, deploy.stderr).toBe(0);
      const warnings = deploy.stderr.split('\n').filter((line) => line.includes('is older than the service'));
      expect(warnings).toEqual([`This sitehost CLI (${cliVersion}) is older than the service at ${relay.origin} (99.0.0). Install the service's own: npm install --global ${relay.origin}/cli/sitehost-cli.tgz`]);
      // The service's own version, or an older one, is no news.
      expect((await installed(['deploy', '.', '--domain', 'packed-old.example'], site, { ...env, SITEHOST_ORIGIN: service.origin })).stderr).not.toContain('is older');
    } finally {
      await relay.close();
    }
  });
});

describe("the CLI package's dependencies", () => {
  /** The packages cli/ and the src/common modules it imports name (bare specifiers, not node: builtins). */
  async function importedPackages(): Promise<Set<string>> {
    const names = new Set<string>();
    for (const folder of ['cli', 'src/common']) {
      for (const entry of await readdir(join(repo, folder), { recursive: true })) {
        if (!entry.endsWith('.ts')) continue;
        const source = await readFile(join(repo, folder, entry), 'utf8');
        for (const [, specifier] of source.matchAll(/(?:from |import\(|createRequire\(import\.meta\.url\)\()'([^.'][^']*)'/g)) {
          if (specifier!.startsWith('node:')) continue;
          const [scope, name] = specifier!.split('/');
          names.add(scope!.startsWith('@') ? `${scope}/${name}` : scope!);
        }
      }
    }
    return names;
  }

  it("are exactly the packages it imports, in the repository's own versions", async () => {
    const cli = JSON.parse(await readFile(join(repo, 'cli', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const root = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = await importedPackages();
    expect(Object.keys(cli.dependencies).sort()).toEqual([...imported].sort());
    for (const [name, range] of Object.entries(cli.dependencies)) expect(range, name).toBe(root.dependencies[name]);
  });
});
