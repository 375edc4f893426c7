/**
 * What the CLI shows a person (issue 35), black-box against the real service: the alias host's
 * hash explained where the host is printed, sizes in the binary units the limits are set in, and
 * the one fallback form in its help and in the docs.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { runCli } from './run';

const repo = new URL('../../..', import.meta.url).pathname;
const domain = 'cli-note.example';
let service: RunningService;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  [service, work] = await Promise.all([sharedService(), mkdtemp(join(tmpdir(), 'sitehost-cli-note-'))]);
  env = { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: await token(service, 'github|note', 'deploy'), XDG_CONFIG_HOME: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the CLI, issue 35', () => {
  it('explains the hash that ends an alias host, where deploy and deployments print it', async () => {
    const folder = join(work, 'site');
    await mkdir(folder, { recursive: true });
    // 1.5 KiB: shown as 1.5 KiB, not 1.5 kB.
    await writeFile(join(folder, 'index.html'), 'x'.repeat(1536));
    const deploy = await runCli(['deploy', folder, '--domain', domain, '--alias', 'feature-x'], { env });
    expect(deploy.code, deploy.stderr).toBe(0);
    const alias = /^ {2}Alias feature-x: (http:\/\/feature-x--cli-note-example(-[a-z2-7]{13})\.preview\.localhost:\d+\/)$/m.exec(deploy.stdout);
    expect(alias, deploy.stdout).not.toBeNull();
    const hash = alias![2]!;
    const note = `Alias addresses of ${domain} end in ${hash}, a hash of the domain: it keeps them apart from other sites' whose names read alike once dots become hyphens and long names are cut to fit one DNS label (a-b.com, a.b.com).`;
    // On the line after the address.
    const lines = deploy.stdout.split('\n');
    expect(lines[lines.findIndex((line) => line.startsWith('  Alias feature-x: ')) + 1]).toBe(`  ${note}`);
    expect(deploy.stdout).toContain('Preview of 1 file (1.5 KiB)');

    const list = await runCli(['deployments', domain], { env });
    expect(list.code, list.stderr).toBe(0);
    const [aliasLine, noteLine] = list.stdout.trim().split('\n').slice(-2);
    expect(aliasLine).toMatch(new RegExp(`^  feature-x  ${alias![1]!.replaceAll('.', '\\.')}  [a-z2-7]{20}$`));
    expect(noteLine).toBe(note);
  });

  it('writes the storage quota in the binary unit it is set in', async () => {
    const usage = await runCli(['usage'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toMatch(/^storage\s+[\d.]+ KiB of 10 GiB \(\d+ %\)\s+MAX_USER_BYTES$/m);
  });

  it('writes fallback one way in its help and in the docs: {"fallback": {"200": …}}', async () => {
    const help = await runCli(['config', 'set', '--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`sitehost config set example.com '{"fallback": {"200": "/index.html"}}'`);
    const docs = join(repo, 'docs');
    for (const name of (await readdir(docs)).filter((file) => file.endsWith('.md'))) {
      expect(await readFile(join(docs, name), 'utf8'), name).not.toMatch(/"fallback":\s*"/);
    }
  });
});
