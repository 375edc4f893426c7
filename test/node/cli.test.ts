import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingRelay, startCountingRelay } from './cli/counting-relay';
import { type CliRun, runCli, startCli } from './cli/run';
import { freePort, getFromSite, type RunningService, sharedService, token } from './support/service';

/**
 * The `sitehost` CLI, black-box: the real binary (`node bin/sitehost.mjs`) against the real
 * service under `wrangler dev`, with credentials from SITEHOST_ORIGIN / SITEHOST_TOKEN or
 * from `sitehost login`'s file in a temporary XDG_CONFIG_HOME.
 */

let service: RunningService;
let work: string;
let alice: string;
let bob: string;

/** The environment of a CI job: origin and token from variables, no stored login, the hash cache in the test's folder. */
function as(userToken: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

async function writeTree(root: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

/** A failure is one readable line on stderr: no stack trace. */
function expectOneLineError(run: CliRun): void {
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

/** A folder of `sizesInMiB.length` files of the given sizes and distinct contents, written without holding them in memory. */
async function writeBigFolder(root: string, sizesInMiB: readonly number[]): Promise<string> {
  await mkdir(root, { recursive: true });
  for (const [index, size] of sizesInMiB.entries()) {
    // Each file's own content: equal files would be uploaded once.
    const megabyte = Buffer.alloc(1024 * 1024, `sitehost ${index} `);
    await pipeline(
      (function* () {
        for (let i = 0; i < size; i += 1) yield megabyte;
      })(),
      createWriteStream(join(root, `file-${index}.bin`)),
    );
  }
  return root;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-test-'));
  service = await sharedService();
  alice = await token(service, 'github|alice');
  bob = await token(service, 'github|bob');
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sitehost login', () => {
  it('checks the token, then stores origin and token readable by the user only', async () => {
    const env = { XDG_CONFIG_HOME: join(work, 'config'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    const login = await runCli(['login', '--origin', `${service.origin}/`, '--token', alice], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('as github|alice');

    const file = join(work, 'config', 'sitehost', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ origin: service.origin, token: alice });

    const sites = await runCli(['sites'], { env });
    expect(sites.code, sites.stderr).toBe(0);
  });

  it('refuses a token the server rejects, and stores nothing', async () => {
    const env = { XDG_CONFIG_HOME: join(work, 'refused'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    const forged = await token(service, 'github|alice', 'deploy', 'not-the-secret');
    const login = await runCli(['login', '--origin', service.origin], { env, stdin: `${forged}\n` });
    expect(login.code).toBe(3);
    expectOneLineError(login);
    await expect(stat(join(work, 'refused', 'sitehost', 'config.json'))).rejects.toThrow();
  });
});

describe('sitehost deploy', () => {
  const domain = 'cli-site.example';

  it('keeps file names with quotes and percent signs as they are on disk', async () => {
    const site = await writeTree(join(work, 'odd-names'), { 'say"hi".html': 'quoted', '100%22.txt': 'percent' });
    const run = await runCli(['deploy', site, '--domain', 'cli-odd-names.example'], { env: as(alice) });
    expect(run.code, run.stderr).toBe(0);
    expect(await getFromSite(service, 'cli-odd-names.example', '/say%22hi%22.html')).toEqual({ status: 200, body: 'quoted' });
    expect(await getFromSite(service, 'cli-odd-names.example', '/100%2522.txt')).toEqual({ status: 200, body: 'percent' });
  });

  it('uploads a folder as the site root, minus .git and what .sitehostignore lists', async () => {
    const site = await writeTree(join(work, 'site'), {
      'index.html': '<h1>Home</h1>',
      'css/site.css': 'body { color: red }',
      'blog/2024/post.html': '<p>Post</p>',
      'notes.txt': 'private notes',
      'drafts/wip.html': 'unfinished',
      '.sitehostignore': '# local only\nnotes.txt\ndrafts/\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': '[core]\n',
    });
    const host = await writeTree(work, { 'host.json': JSON.stringify({ fallback: '/index.html' }) });

    const deploy = await runCli(['deploy', site, '--domain', domain, '--config', join(host, 'host.json')], { env: as(alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stderr).toContain('Uploading 3 files');
    expect(deploy.stdout).toContain('Deployed 3 files');
    expect(deploy.stdout).toContain(`http://${domain}.localhost:${service.port}/`);

    for (const [path, body] of [
      ['/index.html', '<h1>Home</h1>'],
      ['/css/site.css', 'body { color: red }'],
      ['/blog/2024/post.html', '<p>Post</p>'],
    ]) {
      expect(await getFromSite(service, domain, path!)).toEqual({ status: 200, body });
    }
    for (const path of ['/notes.txt', '/drafts/wip.html', '/.git/HEAD', '/.sitehostignore']) {
      const response = await getFromSite(service, domain, path);
      expect(response.body, path).not.toMatch(/private notes|unfinished|refs\/heads|local only/);
    }
  });

  it('keeps a lone top folder: the deployed root is the folder given', async () => {
    const site = await writeTree(join(work, 'lone'), { 'assets/app.js': 'console.log(1)' });
    const deploy = await runCli(['deploy', site, '--domain', 'cli-lone.example', '--json'], { env: as(alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(await getFromSite(service, 'cli-lone.example', '/assets/app.js')).toEqual({ status: 200, body: 'console.log(1)' });
  });

  it('prints only the result with --json: the deploy result, the id and the URLs', async () => {
    // The folder deployed above, unchanged: the live deployment is named, and no new one made.
    // Through a relay that lists the requests: the preview URL comes with the answer, not asked after it.
    const relay = await startCountingRelay(service.port);
    const deploy = await runCli(['deploy', '--domain', domain, '--json'], { env: { ...as(alice), SITEHOST_ORIGIN: relay.origin }, cwd: join(work, 'site') });
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
    const big = await writeBigFolder(join(work, 'big'), [20, 20, ...Array.from({ length: 10 }, () => 1)]);
    const deploy = await runCli(['deploy', big, '--domain', 'cli-big.example'], { env: as(alice), measurePeakRss: true });
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stdout).toContain('Deployed 12 files (52 MB)');
    console.log(`Peak RSS of the CLI deploying 50 MiB: ${((deploy.peakRssKiB ?? 0) / 1024).toFixed(1)} MiB`);
    expect(deploy.peakRssKiB).toBeGreaterThan(0);
    expect(deploy.peakRssKiB).toBeLessThan(100 * 1024);
  });

  it('prints a few progress lines outside a terminal, not one per tick', async () => {
    const folder = await writeBigFolder(join(work, 'logged'), Array.from({ length: 8 }, () => 2));
    const deploy = await runCli(['deploy', folder, '--domain', 'cli-logged.example'], { env: as(alice) });
    expect(deploy.code, deploy.stderr).toBe(0);
    const lines = deploy.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Deploying /);
    expect(lines[1]).toBe('Uploading 8 files (17 MB)');
    expect(lines.at(-1)).toBe('Uploaded 8 files (17 MB); publishing…');
    // At most one line per quarter between the first and the last.
    expect(lines.length).toBeLessThanOrEqual(6);
  });
});

describe('incremental deploys, previews and rollback', () => {
  const domain = 'cli-versions.example';
  const kiB = 1024;
  let folder: string;
  let relay: CountingRelay;
  /** The files' contents as deployed first, and after one file changed. */
  let first: Record<string, string>;
  let second: Record<string, string>;

  /** Runs the CLI through the counting relay; returns the run and the bytes it sent. */
  async function counted(args: readonly string[]): Promise<{ run: CliRun; bytes: number }> {
    const before = relay.bytesFromClients();
    const run = await runCli(args, { env: { ...as(alice), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code, run.stderr).toBe(0);
    return { run, bytes: relay.bytesFromClients() - before };
  }

  async function expectServed(files: Record<string, string>, host = domain): Promise<void> {
    for (const [path, body] of Object.entries(files)) expect(await getFromSite(service, host, `/${path}`)).toEqual({ status: 200, body });
  }

  beforeAll(async () => {
    relay = await startCountingRelay(service.port);
    // Incompressible text, so that the bytes on the wire are the files' own.
    const content = () => randomBytes(192 * kiB).toString('base64');
    first = { 'index.html': content(), 'css/site.css': content(), 'js/app.js': content() };
    second = { ...first, 'css/site.css': content() };
    folder = await writeTree(join(work, 'versions'), first);
  });

  afterAll(() => relay?.close());

  it('uploads no file bytes when the folder is unchanged', async () => {
    const full = await counted(['deploy', folder, '--domain', domain]);
    expect(full.bytes).toBeGreaterThan(3 * 256 * kiB);
    const again = await counted(['deploy', folder, '--domain', domain]);
    console.log(`Redeploy of an unchanged folder: ${again.bytes} bytes sent, the first deploy ${full.bytes}`);
    // Request headers and the manifest only.
    expect(again.bytes).toBeLessThan(16 * kiB);
    expect(again.run.stdout).toMatch(new RegExp(`^✔ ${domain} already serves this folder, 3 files \\(786 kB\\): no new deployment; [a-z2-7]{20} stays live\\.$`, 'm'));
    await expectServed(first);
  });

  it('refuses a folder holding a file over MAX_FILE_BYTES before uploading any of it, first deploy or redeploy', async () => {
    const site = 'cli-too-big.example';
    const tooBig = await writeTree(join(work, 'too-big'), { 'index.html': '<h1>Home</h1>' });
    await writeFile(join(tooBig, 'video.mp4'), Buffer.alloc(25 * 1024 * kiB + 1));
    const refused = async (args: string[]) => {
      const before = relay.bytesFromClients();
      const run = await runCli(['deploy', tooBig, '--domain', site, ...args], { env: { ...as(alice), SITEHOST_ORIGIN: relay.origin } });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: .*The file "video\.mp4" is 26214401 bytes.*MAX_FILE_BYTES/);
      // Headers and the manifest: none of the file's 25 MiB.
      expect(relay.bytesFromClients() - before).toBeLessThan(16 * kiB);
    };
    await refused([]);
    expect((await getFromSite(service, site, '/')).status).toBe(404);

    // A redeploy sends a patch of the deployment it made last time: with the sizes of what it adds.
    await rm(join(tooBig, 'video.mp4'));
    await counted(['deploy', tooBig, '--domain', site]);
    await writeFile(join(tooBig, 'video.mp4'), Buffer.alloc(25 * 1024 * kiB + 1));
    await refused([]);
    await refused(['--no-cache']);
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: '<h1>Home</h1>' });
  });

  it('counts as already stored only what the service had: not empty files, nor a content another file brought', async () => {
    const twins = await writeTree(join(work, 'twins'), { 'a.txt': 'same', 'b.txt': 'same', 'empty.txt': '' });
    const { run } = await counted(['deploy', twins, '--domain', 'cli-twins.example']);
    expect(run.stdout).toContain('Uploaded 1 file (4 B); skipped 0 files (0 B) already stored.');
  });

  it('uploads only the file that changed, with the manifest in one request', async () => {
    await writeTree(folder, second);
    const requestsBefore = relay.requestLines().length;
    const { run, bytes } = await counted(['deploy', folder, '--domain', domain]);
    expect(bytes).toBeGreaterThan(256 * kiB);
    expect(bytes).toBeLessThan(256 * kiB + 16 * kiB);
    expect(run.stdout).toContain('Uploaded 1 file (262 kB); skipped 2 files (524 kB) already stored.');
    // Outside a terminal, the progress lines end as a whole manifest's do.
    expect(run.stderr.trim().split('\n').at(-1)).toBe('Uploaded 1 file (262 kB); publishing…');
    // The deploy alone: a folder deployed here before does not ask first whether it may be.
    expect(relay.requestLines().slice(requestsBefore)).toEqual([`POST /v2/sites/${domain}/deployments HTTP/1.1`]);
    await expectServed(second);
  });

  it("refuses another user's redeploy from the same folder with the service's reason, changing nothing", async () => {
    // Bob shares the folder and its hash cache: the CLI sends its one request straight away.
    const run = await runCli(['deploy', folder, '--domain', domain], { env: { ...as(bob), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code).toBe(5);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Forbidden: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    await expectServed(second);
  });

  it('deploys a file whose content changed with its size and modification time put back', async () => {
    const site = 'cli-identity.example';
    const files = { 'index.html': 'v1', 'app.js': randomBytes(1024).toString('base64') };
    const root = await writeTree(join(work, 'identity'), files);
    const path = join(root, 'app.js');
    // A whole second, which every file system keeps exactly, as build tools and archives set it.
    const mtime = new Date('2026-01-01T00:00:00Z');
    await utimes(path, mtime, mtime);
    // Listed well after that change, the file's record is trusted (not "racily clean") from then on.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await counted(['deploy', root, '--domain', site]);
    const same = { ...files, 'app.js': files['app.js'].replace(/^./, (first) => (first === 'A' ? 'B' : 'A')) };
    await writeTree(root, same);
    await utimes(path, mtime, mtime);
    expect((await stat(path, { bigint: true })).mtimeNs).toBe(BigInt(mtime.getTime()) * 1_000_000n);
    await counted(['deploy', root, '--domain', site]);
    await expectServed(same, site);
    await writeTree(root, files);
    await counted(['deploy', root, '--domain', site, '--no-cache']);
    await expectServed(files, site);
  });

  it('goes the resumable way when its one request is cut', async () => {
    const cut = 'cli-cut-once.example';
    const site = await writeTree(join(work, 'cut-once'), { 'index.html': 'v1' });
    // Both deploys through the relay: one origin, so the second knows what the first left there.
    const cutting = await startCountingRelay(service.port, { dropOnceAfterBytes: 1024 * kiB });
    const env = { ...as(alice), SITEHOST_ORIGIN: cutting.origin };
    try {
      expect((await runCli(['deploy', site, '--domain', cut], { env })).code).toBe(0);
      const changed = { 'index.html': 'v2', 'big.txt': randomBytes(3 * 1024 * kiB).toString('base64') };
      await writeTree(site, changed);
      const run = await runCli(['deploy', site, '--domain', cut], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^The upload was interrupted \(Could not reach .*\); sending the manifest first…$/m);
      for (const [path, body] of Object.entries(changed)) expect((await getFromSite(service, cut, `/${path}`)).body === body, path).toBe(true);
    } finally {
      await cutting.close();
    }
  });

  it('ends the redeploy it opened unsent when the folder cannot be deployed, changing nothing', async () => {
    const site = 'cli-opened.example';
    const root = await writeTree(join(work, 'opened'), { 'index.html': 'kept' });
    await counted(['deploy', root, '--domain', site]);
    await rm(join(root, 'index.html'));
    const requestsBefore = relay.requestLines().length;
    const run = await runCli(['deploy', root, '--domain', site], { env: { ...as(alice), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('There are no files to deploy');
    // The request opened for the redeploy, if it reached the service, was cut before any body: nothing changed.
    expect(relay.requestLines().slice(requestsBefore).every((line) => line === `POST /v2/sites/${site}/deployments HTTP/1.1`)).toBe(true);
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: 'kept' });
  });

  it('sends a redeploy as a patch of the deployment it made last time: a one-file change costs that file', async () => {
    const site = 'cli-patch.example';
    const pages = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`pages/page-${index}.html`, `page ${index}`]));
    const root = await writeTree(join(work, 'patch'), { ...pages, 'index.html': 'v1' });
    const full = await counted(['deploy', root, '--domain', site]);
    // The whole manifest: 1,001 paths and hashes.
    expect(full.bytes).toBeGreaterThan(90 * kiB);

    await writeTree(root, { 'index.html': 'v2' });
    await rm(join(root, 'pages/page-0.html'));
    const requestsBefore = relay.requestLines().length;
    const { run, bytes } = await counted(['deploy', root, '--domain', site]);
    expect(relay.requestLines().slice(requestsBefore)).toEqual([`POST /v2/sites/${site}/deployments HTTP/1.1`]);
    // Request headers, the two paths that changed and the 2 bytes of index.html.
    console.log(`Redeploy of one file of 1,001 as a patch: ${bytes} bytes sent, the first deploy ${full.bytes}`);
    expect(bytes).toBeLessThan(2 * kiB);
    expect(run.stdout).toContain('Uploaded 1 file (2 B); skipped 999 files (7.9 kB) already stored.');
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: 'v2' });
    expect(await getFromSite(service, site, '/pages/page-999.html')).toEqual({ status: 200, body: 'page 999' });
    expect((await getFromSite(service, site, '/pages/page-0.html')).status).toBe(404);

    // Without the cache, every file is read and the whole manifest sent.
    await writeTree(root, { 'index.html': 'v3' });
    const whole = await counted(['deploy', root, '--domain', site, '--no-cache']);
    expect(whole.bytes).toBeGreaterThan(90 * kiB);
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: 'v3' });
  });

  it('sends the whole manifest when the service no longer keeps the deployment it made last time', async () => {
    const site = 'cli-patch-gone.example';
    const root = await writeTree(join(work, 'patch-gone'), { 'index.html': 'v1', 'about.html': 'about' });
    await counted(['deploy', root, '--domain', site]);
    // As though that deployment had been collected: the folder's record names one the site never had.
    const folderKey = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 32);
    const record = join(work, 'cache', 'sitehost', 'folders', `${folderKey}.deployed.json`);
    const last = JSON.parse(await readFile(record, 'utf8')) as { deploymentId: string };
    expect(last.deploymentId).toMatch(/^[a-z2-7]{20,}$/);
    await writeFile(record, JSON.stringify({ ...last, deploymentId: 'a'.repeat(26) }));

    await writeTree(root, { 'index.html': 'v2' });
    const requestsBefore = relay.requestLines().length;
    const { run } = await counted(['deploy', root, '--domain', site]);
    const deployments = `/v2/sites/${site}/deployments`;
    // The patch, refused (its base is not kept), then the whole manifest the resumable way: the preflight, the manifest, the bytes, the finalize.
    const resumable = [
      `POST ${deployments} HTTP/1.1`,
      `GET /v2/sites/${site}/info HTTP/1.1`,
      `POST ${deployments} HTTP/1.1`,
      expect.stringMatching(new RegExp(`^PUT ${deployments}/[a-z2-7]+/blobs HTTP/1\\.1$`)),
      expect.stringMatching(new RegExp(`^POST ${deployments}/[a-z2-7]+/finalize HTTP/1\\.1$`)),
    ];
    expect(relay.requestLines().slice(requestsBefore)).toEqual(resumable);
    expect(run.stdout).toContain('Uploaded 1 file (2 B); skipped 1 file (5 B) already stored.');
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: 'v2' });
    expect(await getFromSite(service, site, '/about.html')).toEqual({ status: 200, body: 'about' });

    // The deployment made then is the next redeploy's base: one request again.
    await writeTree(root, { 'index.html': 'v3' });
    const again = relay.requestLines().length;
    await counted(['deploy', root, '--domain', site]);
    expect(relay.requestLines().slice(again)).toEqual([`POST ${deployments} HTTP/1.1`]);
    expect(await getFromSite(service, site, '/index.html')).toEqual({ status: 200, body: 'v3' });

    // A change too large for one request sends the patch alone (no bytes), and the whole manifest after it.
    await writeFile(record, JSON.stringify({ ...JSON.parse(await readFile(record, 'utf8')), deploymentId: 'a'.repeat(26) }));
    const large = { 'index.html': 'v4', 'large.txt': randomBytes(6.5 * 1024 * kiB).toString('base64') };
    await writeTree(root, large);
    const largeBefore = relay.requestLines().length;
    const largeRun = await counted(['deploy', root, '--domain', site]);
    expect(relay.requestLines().slice(largeBefore)).toEqual(resumable);
    expect(largeRun.run.stdout).toContain('Uploaded 2 files (9.1 MB); skipped 1 file (5 B) already stored.');
    for (const [path, body] of Object.entries(large)) expect((await getFromSite(service, site, `/${path}`)).body === body, path).toBe(true);
  });

  it('makes a preview with --preview, and leaves the live site alone', async () => {
    const preview = { ...second, 'index.html': 'a preview' };
    await writeTree(folder, preview);
    const { run } = await counted(['deploy', folder, '--domain', domain, '--preview']);
    // Seen through the relay, whose port the preview URL keeps.
    const url = new RegExp(`^  http://([a-z2-7]{20,})\\.preview\\.localhost:${new URL(relay.origin).port}/$`, 'm').exec(run.stdout);
    expect(url, run.stdout).not.toBeNull();
    expect(run.stdout).toContain('The live site is unchanged.');
    expect(run.stdout).toMatch(/^  Uploaded 1 file \(9 B\); skipped 2 files \(\d+ kB\) already stored\. Deployment [a-z2-7]{20}\.$/m);
    await expectServed(second);
    await expectServed(preview, `${url![1]}.preview`);
    await writeTree(folder, second);
  });

  it('lists the deployments, newest first, the live one marked', async () => {
    const json = await runCli(['deployments', domain, '--json'], { env: as(alice) });
    expect(json.code, json.stderr).toBe(0);
    const deployments = JSON.parse(json.stdout) as { id: string; live: boolean; fileCount: number; createdBy: string }[];
    // The first deploy, the changed file, the preview: the unchanged repeat made none.
    expect(deployments.length).toBe(3);
    expect(deployments.map((deployment) => deployment.live)).toEqual(deployments.map((_, index) => index === 1));
    expect(deployments[0]).toMatchObject({ fileCount: 3, createdBy: 'github|alice' });

    const text = await runCli(['deployments', domain], { env: as(alice) });
    expect(text.code, text.stderr).toBe(0);
    const [header, ...rows] = text.stdout.trim().split('\n');
    expect(header).toMatch(/^STATUS\s+ID\s+CREATED\s+BY\s+SOURCE\s+FILES\s+SIZE\s+ALIAS\s+MESSAGE\s+PREVIEW$/);
    expect(rows).toHaveLength(deployments.length);
    expect(rows[1]).toMatch(new RegExp(`^live\\s+${deployments[1]!.id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\s+github\\|alice\\s+cli incremental\\s`));
    expect(rows[0]).toMatch(new RegExp(`^preview\\s+${deployments[0]!.id}\\s`));
    expect(rows[0]).toContain(`http://${deployments[0]!.id}.preview.localhost:${service.port}/`);
  });

  it('rolls back to the deployment before the live one with --yes, visible on the next request', async () => {
    const refused = await runCli(['rollback', domain], { env: as(alice) });
    expect(refused.code).toBe(2);
    await expectServed(second);

    const [, live] = JSON.parse((await runCli(['deployments', domain, '--json'], { env: as(alice) })).stdout) as { id: string }[];
    const back = await runCli(['rollback', domain, '--yes'], { env: as(alice) });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(new RegExp(`^✔ ${domain.replace('.', '\\.')} now serves deployment [a-z2-7]{20,} `));
    await expectServed(first);

    const forward = await runCli(['rollback', domain, live!.id, '--yes', '--json'], { env: as(alice) });
    expect(forward.code, forward.stderr).toBe(0);
    expect(JSON.parse(forward.stdout)).toMatchObject({ type: 'site-deploy', domain, deploymentId: live!.id });
    await expectServed(second);

    const unknown = await runCli(['rollback', domain, 'a'.repeat(26), '--yes'], { env: as(alice) });
    expect(unknown.code).toBe(4);
    await expectServed(second);
  });

  it('rolls back past a preview that was never live, to the deployment live before', async () => {
    const site = 'cli-rollback-preview.example';
    const deployFolder = async (name: string, body: string, ...flags: string[]) => {
      const run = await runCli(['deploy', await writeTree(join(work, `rollback-${name}`), { 'index.html': body }), '--domain', site, ...flags], { env: as(alice) });
      expect(run.code, run.stderr).toBe(0);
    };
    await deployFolder('live-1', 'live one');
    await deployFolder('preview', 'never live', '--preview');
    await deployFolder('live-2', 'live two');

    const back = await runCli(['rollback', site, '--yes'], { env: as(alice) });
    expect(back.code, back.stderr).toBe(0);
    expect(await getFromSite(service, site, '/')).toEqual({ status: 200, body: 'live one' });
    const listed = JSON.parse((await runCli(['deployments', site, '--json'], { env: as(alice) })).stdout) as { live: boolean; liveUntil: string | null }[];
    // Newest first: live two (taken off the air), the preview (never live), live one (live again).
    expect(listed.map(({ live, liveUntil }) => [live, liveUntil === null])).toEqual([[false, false], [false, true], [true, true]]);

    const further = await runCli(['rollback', site, '--yes'], { env: as(alice) });
    expect(further.code).toBe(4);
    expect(further.stderr).toContain('no deployment older than the live one that was live');
    expect(await getFromSite(service, site, '/')).toEqual({ status: 200, body: 'live one' });
  });

  it('resumes after a dropped connection, sending what is still missing', async () => {
    const resumed = 'cli-resumed.example';
    expect((await runCli(['deploy', await writeTree(join(work, 'resumed-v1'), { 'index.html': 'v1' }), '--domain', resumed], { env: as(alice) })).code).toBe(0);
    const files = Object.fromEntries(['a', 'b', 'c'].map((name) => [`${name}.txt`, randomBytes(3 * 1024 * kiB).toString('base64')]));
    const big = await writeTree(join(work, 'resumed-v2'), files);
    // Cut in the middle of the first upload request.
    const cutting = await startCountingRelay(service.port, { dropOnceAfterBytes: 2 * 1024 * kiB });
    try {
      const run = await runCli(['deploy', big, '--domain', resumed], { env: { ...as(alice), SITEHOST_ORIGIN: cutting.origin } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^The upload was interrupted \(Could not reach .*\); resuming with 3 files still to send…$/m);
      expect(run.stdout).toContain('Deployed 3 files (13 MB)');
    } finally {
      await cutting.close();
    }
    for (const [path, body] of Object.entries(files)) expect((await getFromSite(service, resumed, `/${path}`)).body === body, path).toBe(true);
  });
});

describe('flags CI scripts already type, whoami and JSON errors', () => {
  it('takes --dir, --message and --prod, and says so when a deploy changes nothing', async () => {
    const site = 'cli-flags.example';
    const root = await writeTree(join(work, 'flags'), { 'index.html': 'v1' });
    const run = await runCli(['deploy', '--dir', root, '--domain', site, '--prod', '--message', 'abc123 Fix the header', '--json'], { env: as(alice) });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { id: string };
    const listed = JSON.parse((await runCli(['deployments', site, '--json'], { env: as(alice) })).stdout) as unknown[];
    expect(listed).toEqual([expect.objectContaining({ id: result.id, live: true, preview: false, message: 'abc123 Fix the header', client: 'cli', source: 'incremental' })]);

    // The whole manifest of the same folder (no record of the last deploy): no new deployment.
    const again = await runCli(['deploy', root, '--domain', site, '--no-cache', '--json'], { env: as(alice) });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: result.id, deploymentId: result.id, unchanged: true });
    expect(JSON.parse((await runCli(['deployments', site, '--json'], { env: as(alice) })).stdout)).toHaveLength(1);

    const twoFolders = await runCli(['deploy', root, '--dir', join(work, 'site'), '--domain', site], { env: as(alice) });
    expect(twoFolders.code).toBe(2);
    expect(twoFolders.stderr).toContain('Two folders given');
    const contradiction = await runCli(['deploy', root, '--domain', site, '--prod', '--preview'], { env: as(alice) });
    expect(contradiction.code).toBe(2);
    const tooLong = await runCli(['deploy', root, '--domain', site, '--message', 'x'.repeat(1001)], { env: as(alice) });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('MAX_MESSAGE_LENGTH');
  });

  it('makes a stable preview host with --alias, a preview unless --prod, the first deploy of a domain included', async () => {
    const site = 'cli-alias.example';
    const root = await writeTree(join(work, 'alias'), { 'index.html': 'branch one' });
    const first = await runCli(['deploy', root, '--domain', site, '--alias', 'feature/Login', '--json'], { env: as(alice) });
    expect(first.code, first.stderr).toBe(0);
    const preview = JSON.parse(first.stdout) as { aliasUrl: string; url?: string };
    expect(preview).toMatchObject({ domain: site, live: false, preview: true, alias: 'feature-login', unchanged: false });
    expect(preview.url).toBeUndefined();
    expect(preview.aliasUrl).toMatch(new RegExp(`^http://feature-login--cli-alias-example-[a-z2-7]{13}\\.preview\\.localhost:${service.port}/$`));
    const aliasHost = new URL(preview.aliasUrl).hostname.replace(/\.localhost$/, '');
    expect(await getFromSite(service, aliasHost, '/')).toEqual({ status: 200, body: 'branch one' });
    // The domain is claimed, and nothing is live.
    expect((await getFromSite(service, site, '/')).status).toBe(404);

    await writeTree(root, { 'index.html': 'branch two' });
    const next = await runCli(['deploy', root, '--domain', site, '--alias', 'feature/Login'], { env: as(alice) });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('Alias "feature/Login" is sent as feature-login.');
    expect(next.stdout).toContain(`Alias feature-login: ${preview.aliasUrl}`);
    expect(await getFromSite(service, aliasHost, '/')).toEqual({ status: 200, body: 'branch two' });

    const prod = await runCli(['deploy', root, '--domain', site, '--alias', 'main', '--prod', '--json'], { env: as(alice) });
    expect(prod.code, prod.stderr).toBe(0);
    expect(JSON.parse(prod.stdout)).toMatchObject({ type: 'site-deploy', url: `http://${site}.localhost:${service.port}/`, aliasUrl: expect.stringContaining('main--cli-alias-example-') });
    expect(await getFromSite(service, site, '/')).toEqual({ status: 200, body: 'branch two' });

    const list = await runCli(['deployments', site], { env: as(alice) });
    expect(list.stdout).toMatch(/^Aliases \(each serves the newest deployment with it\):$/m);
    expect(list.stdout).toMatch(new RegExp(`^  feature-login  ${preview.aliasUrl.replaceAll('.', '\\.')}  [a-z2-7]{20}$`, 'm'));
  });

  it('says who the token is with whoami', async () => {
    // The time left is the token's own exp less the moment the CLI read the clock, which lies
    // between the two readings below, however long the run took on a busy machine.
    const expiresAtMs = (decodeJwt(alice).exp ?? 0) * 1000;
    const before = Date.now();
    const text = await runCli(['whoami'], { env: as(alice) });
    const after = Date.now();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^user\s+github\|alice$/m);
    expect(text.stdout).toMatch(/^scopes\s+deploy$/m);
    const expiresAt = new Date(expiresAtMs).toISOString().slice(0, 23);
    const [, shown, minutes] = /^expires\s+(.+) \(in (\d+) minutes\)$/m.exec(text.stdout) ?? [];
    expect(shown).toBe(`${expiresAt.slice(0, 19).replace('T', ' ')} UTC`);
    expect(Number(minutes)).toBeGreaterThanOrEqual(Math.round((expiresAtMs - after) / 60_000));
    expect(Number(minutes)).toBeLessThanOrEqual(Math.round((expiresAtMs - before) / 60_000));
    const json = await runCli(['whoami', '--json'], { env: as(alice) });
    expect(JSON.parse(json.stdout)).toEqual({ userId: 'github|alice', scopes: ['deploy'], issuer: 'sitehost', expiresAt, origin: service.origin });
    const forged = await runCli(['whoami'], { env: as(await token(service, 'github|alice', 'deploy', 'not-the-secret')) });
    expect(forged.code).toBe(3);
    expectOneLineError(forged);
  });

  it('prints an error as one JSON problem on standard error with --json, exiting with the code of its kind', async () => {
    const problemOf = (run: CliRun) => {
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!) as Record<string, unknown>;
    };
    const notFound = await runCli(['config', 'get', 'nowhere.example', '--json'], { env: as(alice) });
    expect(notFound.code).toBe(4);
    expect(problemOf(notFound)).toEqual({ type: '/problems/site-not-found', title: 'Site not found', status: 404, detail: 'No site is hosted at nowhere.example.', exitCode: 4 });
    const invalid = await runCli(['config', 'patch', 'cli-site.example', '{"fallback": 42}', '--json'], { env: as(alice) });
    expect(invalid.code).toBe(2);
    expect(problemOf(invalid)).toMatchObject({ type: '/problems/invalid-configuration', status: 400, errors: [expect.objectContaining({ pointer: '/fallback' })], exitCode: 2 });
    const usage = await runCli(['sites', '--colour', '--json'], { env: as(alice) });
    expect(usage.code).toBe(2);
    expect(problemOf(usage)).toEqual({ type: 'urn:sitehost:cli:usage', title: 'Invalid usage', detail: "unknown option '--colour'", exitCode: 2 });
    const nobody = await runCli(['whoami', '--json'], { env: { SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '', XDG_CONFIG_HOME: join(work, 'nobody') } });
    expect(nobody.code).toBe(3);
    expect(problemOf(nobody)).toMatchObject({ type: 'urn:sitehost:cli:auth', exitCode: 3 });
    const unreachable = await runCli(['sites', '--json'], { env: { ...as(alice), SITEHOST_ORIGIN: 'http://127.0.0.1:1' } });
    expect(unreachable.code).toBe(6);
    expect(problemOf(unreachable)).toMatchObject({ type: 'urn:sitehost:cli:server', detail: expect.stringContaining('Could not reach'), exitCode: 6 });
  });

  it('offers --json on every command', async () => {
    const commands = ['login', 'logout', 'whoami', 'deploy', 'deployments', 'rollback', 'sites', 'usage', 'delete', 'config get', 'config set', 'config patch', 'files ls', 'files put', 'files rm', 'domains proof', 'info', 'events', 'admin suspend', 'admin resume', 'admin delete'];
    for (const command of commands) {
      const help = await runCli([...command.split(' '), '--help']);
      expect(help.stdout, command).toMatch(/^\s+--json\s/m);
    }
    const logout = await runCli(['logout', '--json'], { env: { XDG_CONFIG_HOME: join(work, 'nobody') } });
    expect(JSON.parse(logout.stdout)).toEqual({ loggedOut: false, configFile: join(work, 'nobody', 'sitehost', 'config.json') });
  });
});

describe('sitehost sites and config', () => {
  it('lists the sites in a table', async () => {
    const sites = await runCli(['sites'], { env: as(alice) });
    expect(sites.code, sites.stderr).toBe(0);
    const [header, ...rows] = sites.stdout.trim().split('\n');
    expect(header).toMatch(/^DOMAIN\s+MODIFIED\s+URL$/);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(expect.arrayContaining(['cli-site.example', 'cli-lone.example']));
  });

  it('prints the stored host configuration', async () => {
    const config = await runCli(['config', 'get', 'cli-site.example'], { env: as(alice) });
    expect(config.code, config.stderr).toBe(0);
    expect(JSON.parse(config.stdout)).toEqual({ fallback: '/index.html' });
  });

  it('replaces and patches the host configuration', async () => {
    const hostFile = join(work, 'replacement.json');
    await writeFile(hostFile, JSON.stringify({ fallback: '/index.html', headers: [{ fields: { 'X-Site': 'cli' } }] }));
    const set = await runCli(['config', 'set', 'cli-lone.example', hostFile], { env: as(alice) });
    expect(set.code, set.stderr).toBe(0);

    const patch = await runCli(['config', 'patch', 'cli-lone.example', '{"headers": null}', '--json'], { env: as(alice) });
    expect(patch.code, patch.stderr).toBe(0);
    expect(JSON.parse(patch.stdout)).toMatchObject({ domain: 'cli-lone.example', configuration: { fallback: '/index.html' } });

    const get = await runCli(['config', 'get', 'cli-lone.example'], { env: as(alice) });
    expect(JSON.parse(get.stdout)).toEqual({ fallback: '/index.html' });

    const invalid = await runCli(['config', 'patch', 'cli-lone.example', '{"fallback": 42}'], { env: as(alice) });
    expect(invalid.code).toBe(2);
    expectOneLineError(invalid);
    expect(invalid.stderr).toContain('Configuration is not valid');
  });
});

describe('sitehost files and info', () => {
  const domain = 'cli-site.example';

  it('lists exactly the uploaded files', async () => {
    const all = await runCli(['files', 'ls', domain, '--recursive', '--json'], { env: as(alice) });
    expect(all.code, all.stderr).toBe(0);
    const paths = (JSON.parse(all.stdout) as { path: string }[]).map((entry) => entry.path);
    expect(paths.sort()).toEqual(['/blog/2024/post.html', '/css/site.css', '/index.html']);

    const root = await runCli(['files', 'ls', domain], { env: as(alice) });
    expect(root.code, root.stderr).toBe(0);
    expect(root.stdout.trim().split('\n').map((row) => row.split(/\s+/)[0])).toEqual(['PATH', '/blog/', '/css/', '/index.html']);
  });

  it('adds, replaces and removes single files', async () => {
    const local = await writeTree(join(work, 'single'), { 'about.html': '<p>About</p>', 'about-v2.html': '<p>About v2</p>' });
    const add = await runCli(['files', 'put', domain, 'about/index.html', join(local, 'about.html')], { env: as(alice) });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('Added /about/index.html');
    expect(await getFromSite(service, domain, '/about/index.html')).toEqual({ status: 200, body: '<p>About</p>' });

    const replace = await runCli(['files', 'put', domain, 'about/index.html', '-'], { env: as(alice), stdin: '<p>About v2</p>' });
    expect(replace.code, replace.stderr).toBe(0);
    expect(replace.stdout).toContain('Replaced /about/index.html');
    expect(await getFromSite(service, domain, '/about/index.html')).toEqual({ status: 200, body: '<p>About v2</p>' });

    const remove = await runCli(['files', 'rm', domain, 'about/index.html'], { env: as(alice) });
    expect(remove.code, remove.stderr).toBe(0);
    const again = await runCli(['files', 'rm', domain, 'about/index.html'], { env: as(alice) });
    expect(again.code).toBe(4);
  });

  it("shows a site's metadata", async () => {
    const json = await runCli(['info', domain, '--json'], { env: as(alice) });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ domain, userId: 'github|alice', deployment: { fileCount: 3 } });

    const text = await runCli(['info', domain], { env: as(alice) });
    expect(text.stdout).toMatch(/^owner\s+github\|alice$/m);
    expect(text.stdout).toMatch(/^deployment\s+3 files, /m);
  });
});

describe('sitehost events', () => {
  it('follows deploys as they happen, and resumes after an event id', async () => {
    const reader = await token(service, 'github|ops', 'global_read');
    // From the first event on, so that the deploy below cannot slip in before the subscription.
    const follower = startCli(['events', '--json', '--last-event-id', '0'], { env: as(reader) });
    try {
      const site = await writeTree(join(work, 'events'), { 'index.html': 'events' });
      const deploy = await runCli(['deploy', site, '--domain', 'cli-events.example', '--json'], { env: as(alice) });
      expect(deploy.code, deploy.stderr).toBe(0);
      const line = await follower.waitForLine((text) => text.includes('"cli-events.example"'));
      const event = JSON.parse(line) as { id: string };
      // The deploy's output is the deploy result (the event's data) with the deployment's id and URLs.
      const { id: _id, url: _url, previewUrl: _previewUrl, unchanged: _unchanged, ...result } = JSON.parse(deploy.stdout) as Record<string, unknown>;
      expect(event).toEqual({ id: expect.stringMatching(/^\d+$/), ...result });

      const resumed = startCli(['events', '--json', '--last-event-id', String(Number(event.id) - 1)], { env: as(reader) });
      try {
        expect(JSON.parse(await resumed.waitForLine(() => true))).toEqual(event);
      } finally {
        await resumed.stop();
      }
    } finally {
      await follower.stop();
    }
  });

  it('exits 3 without the global_read scope', async () => {
    const run = await runCli(['events'], { env: as(alice) });
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Insufficient scope: /);
  });
});

describe('errors', () => {
  it('exits 3 for a token the server rejects', async () => {
    const forged = await token(service, 'github|alice', 'deploy', 'not-the-secret');
    const run = await runCli(['sites'], { env: as(forged) });
    expect(run.code).toBe(3);
    expectOneLineError(run);
    expect(run.stderr).toContain('Authentication required');
  });

  it('exits 3 when not logged in at all', async () => {
    const run = await runCli(['sites'], { env: { SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '', XDG_CONFIG_HOME: join(work, 'nobody') } });
    expect(run.code).toBe(3);
    expectOneLineError(run);
  });

  it('exits 4 for a site that is not hosted', async () => {
    const run = await runCli(['config', 'get', 'nowhere.example'], { env: as(alice) });
    expect(run.code).toBe(4);
    expectOneLineError(run);
    expect(run.stderr).toContain('Site not found: No site is hosted at nowhere.example.');
  });

  it("exits 5 for another user's site", async () => {
    const site = await writeTree(join(work, 'intruder'), { 'index.html': 'mine now' });
    const deploy = await runCli(['deploy', site, '--domain', 'cli-site.example'], { env: as(bob) });
    expect(deploy.code).toBe(5);
    expect(deploy.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Forbidden: /);
    const remove = await runCli(['delete', 'cli-site.example', '--yes'], { env: as(bob) });
    expect(remove.code).toBe(5);
    expectOneLineError(remove);
    expect(await getFromSite(service, 'cli-site.example', '/index.html')).toEqual({ status: 200, body: '<h1>Home</h1>' });
  });

  it('exits 2 for bad usage, with a stack trace only under --debug', async () => {
    const noDomain = await runCli(['deploy', join(work, 'site')], { env: as(alice) });
    expect(noDomain.code).toBe(2);
    expectOneLineError(noDomain);

    const unknownOption = await runCli(['sites', '--colour'], { env: as(alice) });
    expect(unknownOption.code).toBe(2);

    const invalidDomain = await runCli(['deploy', join(work, 'site'), '--domain', 'localhost'], { env: as(alice) });
    expect(invalidDomain.code).toBe(2);
    expect(invalidDomain.stderr).toContain('Invalid domain');

    const debug = await runCli(['--debug', 'deploy', join(work, 'missing-folder'), '--domain', 'x.example'], { env: as(alice) });
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('refuses an invalid domain itself, before reading the folder or connecting', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const run = await runCli(['deploy', join(work, 'missing-folder'), '--domain', 'bad_domain'], { env: { ...as(alice), SITEHOST_ORIGIN: nowhere } });
    expect(run.code).toBe(2);
    expectOneLineError(run);
    expect(run.stderr).toContain('Invalid domain: "bad_domain" is not a valid domain');
  });

  it('asks before it uploads: a token the service refuses costs none of the folder', async () => {
    const big = await writeBigFolder(join(work, 'refused-big'), [20, 20, 20]);
    const relay = await startCountingRelay(service.port);
    try {
      const forged = await token(service, 'github|alice', 'deploy', 'not-the-secret');
      const started = Date.now();
      const run = await runCli(['deploy', big, '--domain', 'cli-refused.example'], { env: { ...as(forged), SITEHOST_ORIGIN: relay.origin } });
      const seconds = (Date.now() - started) / 1000;
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Authentication required: /);
      expect(run.stderr).not.toContain('Uploaded 3 files');
      console.log(`Refused deploy of 60 MiB: ${(relay.bytesFromClients() / 1024 / 1024).toFixed(1)} MiB sent in ${seconds.toFixed(1)} s`);
      // Request headers only: no part of the 60 MiB left the machine.
      expect(relay.bytesFromClients()).toBeLessThan(64 * 1024);
    } finally {
      await relay.close();
    }
  });

  it('exits 6 when the service cannot be reached', async () => {
    const run = await runCli(['sites'], { env: { ...as(alice), SITEHOST_ORIGIN: 'http://127.0.0.1:1' } });
    expect(run.code).toBe(6);
    expectOneLineError(run);
    expect(run.stderr).toContain('Could not reach http://127.0.0.1:1');
  });
});

describe('sitehost delete', () => {
  it('refuses to delete without --yes when not on a terminal', async () => {
    const run = await runCli(['delete', 'cli-lone.example'], { env: as(alice) });
    expect(run.code).toBe(2);
    expect((await getFromSite(service, 'cli-lone.example', '/assets/app.js')).status).toBe(200);
  });

  it('unpublishes a site with --yes', async () => {
    const run = await runCli(['delete', 'cli-lone.example', '--yes'], { env: as(alice) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Deleted cli-lone.example');
    expect((await getFromSite(service, 'cli-lone.example', '/assets/app.js')).status).toBe(404);

    const sites = await runCli(['sites', '--json'], { env: as(alice) });
    expect((JSON.parse(sites.stdout) as { domain: string }[]).map((site) => site.domain)).not.toContain('cli-lone.example');
    const again = await runCli(['delete', 'cli-lone.example', '--yes'], { env: as(alice) });
    expect(again.code).toBe(4);
  });
});
