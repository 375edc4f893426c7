import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getFromSite } from '../support/service';
import { startCountingRelay } from './counting-relay';
import { runCli } from './run';
import { ciEnvironment, expectOneLineError, useCliSession, writeBigFolder, writeTree } from './session';

/** The `sitehost` CLI against the shared service, black-box (./session.ts). Deploys of a folder, then the sites, host configuration and files it made, and their unpublishing. */

const session = useCliSession();
const as = (userToken: string) => ciEnvironment(session, userToken);

describe('sitehost deploy', () => {
  const domain = 'cli-site.example';

  it('keeps file names with quotes and percent signs as they are on disk', async () => {
    const site = await writeTree(join(session.work, 'odd-names'), { 'say"hi".html': 'quoted', '100%22.txt': 'percent' });
    const run = await runCli(['deploy', site, '--domain', 'cli-odd-names.example'], { env: as(session.alice) });
    expect(run.code, run.stderr).toBe(0);
    expect(await getFromSite(session.service, 'cli-odd-names.example', '/say%22hi%22.html')).toEqual({ status: 200, body: 'quoted' });
    expect(await getFromSite(session.service, 'cli-odd-names.example', '/100%2522.txt')).toEqual({ status: 200, body: 'percent' });
  });

  it('uploads a folder as the site root, minus .git and what .sitehostignore lists', async () => {
    const site = await writeTree(join(session.work, 'site'), {
      'index.html': '<h1>Home</h1>',
      'css/site.css': 'body { color: red }',
      'blog/2024/post.html': '<p>Post</p>',
      'notes.txt': 'private notes',
      'drafts/wip.html': 'unfinished',
      '.sitehostignore': '# local only\nnotes.txt\ndrafts/\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': '[core]\n',
    });
    const host = await writeTree(session.work, { 'host.json': JSON.stringify({ fallback: '/index.html' }) });

    const deploy = await runCli(['deploy', site, '--domain', domain, '--config', join(host, 'host.json')], { env: as(session.alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stderr).toContain('Uploading 3 files');
    expect(deploy.stdout).toContain('Deployed 3 files');
    expect(deploy.stdout).toContain(`http://${domain}.localhost:${session.service.port}/`);

    for (const [path, body] of [
      ['/index.html', '<h1>Home</h1>'],
      ['/css/site.css', 'body { color: red }'],
      ['/blog/2024/post.html', '<p>Post</p>'],
    ]) {
      expect(await getFromSite(session.service, domain, path!)).toEqual({ status: 200, body });
    }
    for (const path of ['/notes.txt', '/drafts/wip.html', '/.git/HEAD', '/.sitehostignore']) {
      const response = await getFromSite(session.service, domain, path);
      expect(response.body, path).not.toMatch(/private notes|unfinished|refs\/heads|local only/);
    }
  });

  it('keeps a lone top folder: the deployed root is the folder given', async () => {
    const site = await writeTree(join(session.work, 'lone'), { 'assets/app.js': 'console.log(1)' });
    const deploy = await runCli(['deploy', site, '--domain', 'cli-lone.example', '--json'], { env: as(session.alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(await getFromSite(session.service, 'cli-lone.example', '/assets/app.js')).toEqual({ status: 200, body: 'console.log(1)' });
  });

  it('prints only the result with --json: the deploy result, the id and the URLs', async () => {
    // The folder deployed above, unchanged: the live deployment is named, and no new one made.
    // Through a relay that lists the requests: the preview URL comes with the answer, not asked after it.
    const relay = await startCountingRelay(session.service.port);
    const deploy = await runCli(['deploy', '--domain', domain, '--json'], { env: { ...as(session.alice), SITEHOST_ORIGIN: relay.origin }, cwd: join(session.work, 'site') });
    await relay.close();
    expect(relay.requestLines()).toEqual([`GET /v2/sites/${domain}/info HTTP/1.1`, `POST /v2/sites/${domain}/deployments HTTP/1.1`]);
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stderr).toBe('');
    const result = JSON.parse(deploy.stdout) as { id: string };
    expect(result).toEqual({
      id: result.id,
      type: 'site-deploy',
      domain,
      isNewDomain: false,
      hasNewFiles: false,
      hasNewConfiguration: false,
      unchanged: true,
      deploymentId: result.id,
      committedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
      url: `http://${domain}.localhost:${new URL(relay.origin).port}/`,
      previewUrl: `http://${result.id}.preview.localhost:${new URL(relay.origin).port}/`,
    });
    expect(result.id).toMatch(/^[a-z2-7]{20}$/);
  });

  // Measured like every run after a first one: the deploys above have filled Node's compile
  // cache (bin/sitehost.mjs enables it), so the TypeScript stripper is not loaded. A cold first
  // run of the same deploy peaks about 25 MB higher, still under 100 MB.
  it('streams a 50 MB folder with a peak resident set under 100 MB', async () => {
    const big = await writeBigFolder(join(session.work, 'big'), [20, 20, ...Array.from({ length: 10 }, () => 1)]);
    const deploy = await runCli(['deploy', big, '--domain', 'cli-big.example'], { env: as(session.alice), measurePeakRss: true });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stdout).toContain('Deployed 12 files (50 MiB)');
    console.log(`Peak RSS of the CLI deploying 50 MiB: ${((deploy.peakRssKiB ?? 0) / 1024).toFixed(1)} MiB`);
    expect(deploy.peakRssKiB).toBeGreaterThan(0);
    expect(deploy.peakRssKiB).toBeLessThan(100 * 1024);
  });

  it('prints a few progress lines outside a terminal, not one per tick', async () => {
    const folder = await writeBigFolder(join(session.work, 'logged'), Array.from({ length: 8 }, () => 2));
    const deploy = await runCli(['deploy', folder, '--domain', 'cli-logged.example'], { env: as(session.alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    const lines = deploy.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Deploying /);
    expect(lines[1]).toBe('Uploading 8 files (16 MiB)');
    expect(lines.at(-1)).toBe('Uploaded 8 files (16 MiB); publishing…');
    // At most one line per quarter between the first and the last.
    expect(lines.length).toBeLessThanOrEqual(6);
  });
});

describe('sitehost sites and config', () => {
  it('lists the sites in a table', async () => {
    const sites = await runCli(['sites'], { env: as(session.alice) });
    expect(sites.code, sites.stderr).toBe(0);
    const [header, ...rows] = sites.stdout.trim().split('\n');
    expect(header).toMatch(/^DOMAIN\s+MODIFIED\s+URL$/);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(expect.arrayContaining(['cli-site.example', 'cli-lone.example']));
  });

  it('prints the stored host configuration', async () => {
    const config = await runCli(['config', 'get', 'cli-site.example'], { env: as(session.alice) });
    expect(config.code, config.stderr).toBe(0);
    expect(JSON.parse(config.stdout)).toEqual({ fallback: '/index.html' });
  });

  it('replaces and patches the host configuration', async () => {
    const hostFile = join(session.work, 'replacement.json');
    await writeFile(hostFile, JSON.stringify({ fallback: '/index.html', headers: [{ fields: { 'X-Site': 'cli' } }] }));
    const set = await runCli(['config', 'set', 'cli-lone.example', hostFile], { env: as(session.alice) });
    expect(set.code, set.stderr).toBe(0);

    const patch = await runCli(['config', 'patch', 'cli-lone.example', '{"headers": null}', '--json'], { env: as(session.alice) });
    expect(patch.code, patch.stderr).toBe(0);
    expect(JSON.parse(patch.stdout)).toMatchObject({ domain: 'cli-lone.example', configuration: { fallback: '/index.html' } });

    const get = await runCli(['config', 'get', 'cli-lone.example'], { env: as(session.alice) });
    expect(JSON.parse(get.stdout)).toEqual({ fallback: '/index.html' });

    const invalid = await runCli(['config', 'patch', 'cli-lone.example', '{"fallback": 42}'], { env: as(session.alice) });
    expect(invalid.code).toBe(7);
    expectOneLineError(invalid);
    expect(invalid.stderr).toContain('Configuration is not valid');
  });
});

describe('sitehost files and info', () => {
  const domain = 'cli-site.example';

  it('lists exactly the uploaded files', async () => {
    const all = await runCli(['files', 'ls', domain, '--recursive', '--json'], { env: as(session.alice) });
    expect(all.code, all.stderr).toBe(0);
    const paths = (JSON.parse(all.stdout) as { path: string }[]).map((entry) => entry.path);
    expect(paths.sort()).toEqual(['/blog/2024/post.html', '/css/site.css', '/index.html']);

    const root = await runCli(['files', 'ls', domain], { env: as(session.alice) });
    expect(root.code, root.stderr).toBe(0);
    expect(root.stdout.trim().split('\n').map((row) => row.split(/\s+/)[0])).toEqual(['PATH', '/blog/', '/css/', '/index.html']);
  });

  it('adds, replaces and removes single files', async () => {
    const local = await writeTree(join(session.work, 'single'), { 'about.html': '<p>About</p>', 'about-v2.html': '<p>About v2</p>' });
    const add = await runCli(['files', 'put', domain, 'about/index.html', join(local, 'about.html')], { env: as(session.alice) });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('Added /about/index.html');
    expect(await getFromSite(session.service, domain, '/about/index.html')).toEqual({ status: 200, body: '<p>About</p>' });

    const replace = await runCli(['files', 'put', domain, 'about/index.html', '-'], { env: as(session.alice), stdin: '<p>About v2</p>' });
    expect(replace.code, replace.stderr).toBe(0);
    expect(replace.stdout).toContain('Replaced /about/index.html');
    expect(await getFromSite(session.service, domain, '/about/index.html')).toEqual({ status: 200, body: '<p>About v2</p>' });

    const remove = await runCli(['files', 'rm', domain, 'about/index.html'], { env: as(session.alice) });
    expect(remove.code, remove.stderr).toBe(0);
    const again = await runCli(['files', 'rm', domain, 'about/index.html'], { env: as(session.alice) });
    expect(again.code).toBe(4);
  });

  it("shows a site's metadata", async () => {
    const json = await runCli(['info', domain, '--json'], { env: as(session.alice) });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ domain, userId: 'github|alice', deployment: { fileCount: 3 } });

    const text = await runCli(['info', domain], { env: as(session.alice) });
    expect(text.stdout).toMatch(/^owner\s+github\|alice$/m);
    expect(text.stdout).toMatch(/^deployment\s+3 files, /m);
  });
});

describe('sitehost delete', () => {
  it('refuses to delete without --yes when not on a terminal', async () => {
    const run = await runCli(['delete', 'cli-lone.example'], { env: as(session.alice) });
    expect(run.code).toBe(2);
    expect((await getFromSite(session.service, 'cli-lone.example', '/assets/app.js')).status).toBe(200);
  });

  it('unpublishes a site with --yes', async () => {
    const run = await runCli(['delete', 'cli-lone.example', '--yes'], { env: as(session.alice) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Deleted cli-lone.example');
    expect((await getFromSite(session.service, 'cli-lone.example', '/assets/app.js')).status).toBe(404);

    const sites = await runCli(['sites', '--json'], { env: as(session.alice) });
    expect((JSON.parse(sites.stdout) as { domain: string }[]).map((site) => site.domain)).not.toContain('cli-lone.example');
    const again = await runCli(['delete', 'cli-lone.example', '--yes'], { env: as(session.alice) });
    expect(again.code).toBe(4);
  });
});
