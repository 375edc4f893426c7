import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFromSite, siteAnswer } from '../support/service';
import { type CountingRelay, startCountingRelay } from './counting-relay';
import { type CliRun, runCli } from './run';
import { ciEnvironment, useCliSession, writeTree } from './session';

/** The `sitehost` CLI against the shared service, black-box (./session.ts). Incremental deploys (the hash cache, patches, resumable uploads), previews and rollback. */

const session = useCliSession();
const as = (userToken: string) => ciEnvironment(session, userToken);

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
    const run = await runCli(args, { env: { ...as(session.alice), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code, run.stderr).toBe(0);
    return { run, bytes: relay.bytesFromClients() - before };
  }

  async function expectServed(files: Record<string, string>, host = domain, headers: Record<string, string> = {}): Promise<void> {
    for (const [path, body] of Object.entries(files)) {
      const { status, body: served } = await siteAnswer(session.service, host, `/${path}`, headers);
      expect({ status, body: served }).toEqual({ status: 200, body });
    }
  }

  beforeAll(async () => {
    relay = await startCountingRelay(session.service.port);
    // Incompressible text, so that the bytes on the wire are the files' own.
    const content = () => randomBytes(192 * kiB).toString('base64');
    first = { 'index.html': content(), 'css/site.css': content(), 'js/app.js': content() };
    second = { ...first, 'css/site.css': content() };
    folder = await writeTree(join(session.work, 'versions'), first);
  });

  afterAll(() => relay?.close());

  it('uploads no file bytes when the folder is unchanged', async () => {
    const full = await counted(['deploy', folder, '--domain', domain]);
    expect(full.bytes).toBeGreaterThan(3 * 256 * kiB);
    const again = await counted(['deploy', folder, '--domain', domain]);
    console.log(`Redeploy of an unchanged folder: ${again.bytes} bytes sent, the first deploy ${full.bytes}`);
    // Request headers and the manifest only.
    expect(again.bytes).toBeLessThan(16 * kiB);
    expect(again.run.stdout).toMatch(new RegExp(`^✔ ${domain} already serves this folder, 3 files \\(768 KiB\\): no new deployment; [a-z2-7]{20} stays live\\.$`, 'm'));
    await expectServed(first);
  });

  it('refuses a folder holding a file over MAX_FILE_BYTES before uploading any of it, first deploy or redeploy', async () => {
    const site = 'cli-too-big.example';
    const tooBig = await writeTree(join(session.work, 'too-big'), { 'index.html': '<h1>Home</h1>' });
    await writeFile(join(tooBig, 'video.mp4'), Buffer.alloc(25 * 1024 * kiB + 1));
    const refused = async (args: string[]) => {
      const before = relay.bytesFromClients();
      const run = await runCli(['deploy', tooBig, '--domain', site, ...args], { env: { ...as(session.alice), SITEHOST_ORIGIN: relay.origin } });
      expect(run.code, run.stderr).toBe(7);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: .*The file "video\.mp4" is 26214401 bytes.*MAX_FILE_BYTES/);
      // Headers and the manifest: none of the file's 25 MiB.
      expect(relay.bytesFromClients() - before).toBeLessThan(16 * kiB);
    };
    await refused([]);
    expect((await getFromSite(session.service, site, '/')).status).toBe(404);

    // A redeploy sends a patch of the deployment it made last time: with the sizes of what it adds.
    await rm(join(tooBig, 'video.mp4'));
    await counted(['deploy', tooBig, '--domain', site]);
    await writeFile(join(tooBig, 'video.mp4'), Buffer.alloc(25 * 1024 * kiB + 1));
    await refused([]);
    await refused(['--no-cache']);
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: '<h1>Home</h1>' });
  });

  it('counts as already stored only what the session.service had: not empty files, nor a content another file brought', async () => {
    const twins = await writeTree(join(session.work, 'twins'), { 'a.txt': 'same', 'b.txt': 'same', 'empty.txt': '' });
    const { run } = await counted(['deploy', twins, '--domain', 'cli-twins.example']);
    expect(run.stdout).toContain('Uploaded 1 file (4 B); skipped 0 files (0 B) already stored.');
  });

  it('uploads only the file that changed, with the manifest in one request', async () => {
    await writeTree(folder, second);
    const requestsBefore = relay.requestLines().length;
    const { run, bytes } = await counted(['deploy', folder, '--domain', domain]);
    expect(bytes).toBeGreaterThan(256 * kiB);
    expect(bytes).toBeLessThan(256 * kiB + 16 * kiB);
    expect(run.stdout).toContain('Uploaded 1 file (256 KiB); skipped 2 files (512 KiB) already stored.');
    // Outside a terminal, the progress lines end as a whole manifest's do.
    expect(run.stderr.trim().split('\n').at(-1)).toBe('Uploaded 1 file (256 KiB); publishing…');
    // The deploy alone: a folder deployed here before does not ask first whether it may be.
    expect(relay.requestLines().slice(requestsBefore)).toEqual([`POST /v2/sites/${domain}/deployments HTTP/1.1`]);
    await expectServed(second);
  });

  it("refuses another user's redeploy from the same folder with the service's reason, changing nothing", async () => {
    // Bob shares the folder and its hash cache: the CLI sends its one request straight away.
    const run = await runCli(['deploy', folder, '--domain', domain], { env: { ...as(session.bob), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code).toBe(5);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Forbidden: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    await expectServed(second);
  });

  it('deploys a file whose content changed with its size and modification time put back', async () => {
    const site = 'cli-identity.example';
    const files = { 'index.html': 'v1', 'app.js': randomBytes(1024).toString('base64') };
    const root = await writeTree(join(session.work, 'identity'), files);
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
    const site = await writeTree(join(session.work, 'cut-once'), { 'index.html': 'v1' });
    // Both deploys through the relay: one origin, so the second knows what the first left there.
    const cutting = await startCountingRelay(session.service.port, { dropOnceAfterBytes: 1024 * kiB });
    const env = { ...as(session.alice), SITEHOST_ORIGIN: cutting.origin };
    try {
      expect((await runCli(['deploy', site, '--domain', cut], { env })).code).toBe(0);
      const changed = { 'index.html': 'v2', 'big.txt': randomBytes(3 * 1024 * kiB).toString('base64') };
      await writeTree(site, changed);
      const run = await runCli(['deploy', site, '--domain', cut], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^The upload was interrupted \(Could not reach .*\); sending the manifest first…$/m);
      for (const [path, body] of Object.entries(changed)) expect((await getFromSite(session.service, cut, `/${path}`)).body === body, path).toBe(true);
    } finally {
      await cutting.close();
    }
  });

  it('ends the redeploy it opened unsent when the folder cannot be deployed, changing nothing', async () => {
    const site = 'cli-opened.example';
    const root = await writeTree(join(session.work, 'opened'), { 'index.html': 'kept' });
    await counted(['deploy', root, '--domain', site]);
    await rm(join(root, 'index.html'));
    const requestsBefore = relay.requestLines().length;
    const run = await runCli(['deploy', root, '--domain', site], { env: { ...as(session.alice), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('There are no files to deploy');
    // The request opened for the redeploy, if it reached the session.service, was cut before any body: nothing changed.
    expect(relay.requestLines().slice(requestsBefore).every((line) => line === `POST /v2/sites/${site}/deployments HTTP/1.1`)).toBe(true);
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: 'kept' });
  });

  it('sends a redeploy as a patch of the deployment it made last time: a one-file change costs that file', async () => {
    const site = 'cli-patch.example';
    const pages = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`pages/page-${index}.html`, `page ${index}`]));
    const root = await writeTree(join(session.work, 'patch'), { ...pages, 'index.html': 'v1' });
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
    expect(run.stdout).toContain('Uploaded 1 file (2 B); skipped 999 files (7.7 KiB) already stored.');
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: 'v2' });
    expect(await getFromSite(session.service, site, '/pages/page-999.html')).toEqual({ status: 200, body: 'page 999' });
    expect((await getFromSite(session.service, site, '/pages/page-0.html')).status).toBe(404);

    // Without the cache, every file is read and the whole manifest sent.
    await writeTree(root, { 'index.html': 'v3' });
    const whole = await counted(['deploy', root, '--domain', site, '--no-cache']);
    expect(whole.bytes).toBeGreaterThan(90 * kiB);
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: 'v3' });
  });

  it('sends the whole manifest when the session.service no longer keeps the deployment it made last time', async () => {
    const site = 'cli-patch-gone.example';
    const root = await writeTree(join(session.work, 'patch-gone'), { 'index.html': 'v1', 'about.html': 'about' });
    await counted(['deploy', root, '--domain', site]);
    // As though that deployment had been collected: the folder's record names one the site never had.
    const folderKey = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 32);
    const record = join(session.work, 'cache', 'sitehost', 'folders', `${folderKey}.deployed.json`);
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
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: 'v2' });
    expect(await getFromSite(session.service, site, '/about.html')).toEqual({ status: 200, body: 'about' });

    // The deployment made then is the next redeploy's base: one request again.
    await writeTree(root, { 'index.html': 'v3' });
    const again = relay.requestLines().length;
    await counted(['deploy', root, '--domain', site]);
    expect(relay.requestLines().slice(again)).toEqual([`POST ${deployments} HTTP/1.1`]);
    expect(await getFromSite(session.service, site, '/index.html')).toEqual({ status: 200, body: 'v3' });

    // A change too large for one request sends the patch alone (no bytes), and the whole manifest after it.
    await writeFile(record, JSON.stringify({ ...JSON.parse(await readFile(record, 'utf8')), deploymentId: 'a'.repeat(26) }));
    const large = { 'index.html': 'v4', 'large.txt': randomBytes(6.5 * 1024 * kiB).toString('base64') };
    await writeTree(root, large);
    const largeBefore = relay.requestLines().length;
    const largeRun = await counted(['deploy', root, '--domain', site]);
    expect(relay.requestLines().slice(largeBefore)).toEqual(resumable);
    expect(largeRun.run.stdout).toContain('Uploaded 2 files (8.7 MiB); skipped 1 file (5 B) already stored.');
    for (const [path, body] of Object.entries(large)) expect((await getFromSite(session.service, site, `/${path}`)).body === body, path).toBe(true);
  });

  it('makes a preview with --preview, and leaves the live site alone', async () => {
    const preview = { ...second, 'index.html': 'a preview' };
    await writeTree(folder, preview);
    const { run } = await counted(['deploy', folder, '--domain', domain, '--preview']);
    // Seen through the relay, whose port the preview URL keeps.
    const url = new RegExp(`^  http://([a-z2-7]{20,})\\.preview\\.localhost:${new URL(relay.origin).port}/$`, 'm').exec(run.stdout);
    expect(url, run.stdout).not.toBeNull();
    expect(run.stdout).toContain('The live site is unchanged.');
    expect(run.stdout).toMatch(/^  Uploaded 1 file \(9 B\); skipped 2 files \(\d+ KiB\) already stored\. Deployment [a-z2-7]{20}\.$/m);
    await expectServed(second);
    // A new site's previews are for members: the share link printed beside it opens the preview's host.
    const previewHost = `${url![1]}.preview`;
    expect((await getFromSite(session.service, previewHost, '/')).status).toBe(401);
    const link = /^ {2}Previews are for members: share link, until .* UTC: (http:\/\/\S+)$/m.exec(run.stdout);
    expect(link, run.stdout).not.toBeNull();
    const opened = await siteAnswer(session.service, previewHost, `${new URL(link![1]!).pathname}${new URL(link![1]!).search}`);
    expect(opened.status).toBe(303);
    await expectServed(preview, previewHost, { cookie: String(opened.headers['set-cookie']).split(';')[0]! });
    await writeTree(folder, second);
  });

  it('lists the deployments, newest first, the live one marked', async () => {
    const json = await runCli(['deployments', domain, '--json'], { env: as(session.alice) });
    expect(json.code, json.stderr).toBe(0);
    const deployments = JSON.parse(json.stdout) as { id: string; live: boolean; fileCount: number; createdBy: string }[];
    // The first deploy, the changed file, the preview: the unchanged repeat made none.
    expect(deployments.length).toBe(3);
    expect(deployments.map((deployment) => deployment.live)).toEqual(deployments.map((_, index) => index === 1));
    expect(deployments[0]).toMatchObject({ fileCount: 3, createdBy: 'github|alice' });

    const text = await runCli(['deployments', domain], { env: as(session.alice) });
    expect(text.code, text.stderr).toBe(0);
    const [header, ...rows] = text.stdout.trim().split('\n');
    expect(header).toMatch(/^STATUS\s+ID\s+CREATED\s+BY\s+VIA\s+SOURCE\s+FILES\s+SIZE\s+ALIAS\s+MESSAGE\s+PREVIEW$/);
    expect(rows).toHaveLength(deployments.length);
    expect(rows[1]).toMatch(new RegExp(`^live\\s+${deployments[1]!.id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\s+github\\|alice\\s+sign-in\\s+cli incremental\\s`));
    expect(rows[0]).toMatch(new RegExp(`^preview\\s+${deployments[0]!.id}\\s`));
    expect(rows[0]).toContain(`http://${deployments[0]!.id}.preview.localhost:${session.service.port}/`);
  });

  it('rolls back to the deployment before the live one with --yes, visible on the next request', async () => {
    const refused = await runCli(['rollback', domain], { env: as(session.alice) });
    expect(refused.code).toBe(2);
    await expectServed(second);

    const [, live] = JSON.parse((await runCli(['deployments', domain, '--json'], { env: as(session.alice) })).stdout) as { id: string }[];
    const back = await runCli(['rollback', domain, '--yes'], { env: as(session.alice) });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(new RegExp(`^✔ ${domain.replace('.', '\\.')} now serves deployment [a-z2-7]{20,} `));
    await expectServed(first);

    const forward = await runCli(['rollback', domain, live!.id, '--yes', '--json'], { env: as(session.alice) });
    expect(forward.code, forward.stderr).toBe(0);
    expect(JSON.parse(forward.stdout)).toMatchObject({ type: 'site-deploy', domain, deploymentId: live!.id });
    await expectServed(second);

    const unknown = await runCli(['rollback', domain, 'a'.repeat(26), '--yes'], { env: as(session.alice) });
    expect(unknown.code).toBe(4);
    await expectServed(second);
  });

  it('rolls back past a preview that was never live, to the deployment live before', async () => {
    const site = 'cli-rollback-preview.example';
    const deployFolder = async (name: string, body: string, ...flags: string[]) => {
      const run = await runCli(['deploy', await writeTree(join(session.work, `rollback-${name}`), { 'index.html': body }), '--domain', site, ...flags], { env: as(session.alice) });
      expect(run.code, run.stderr).toBe(0);
    };
    await deployFolder('live-1', 'live one');
    await deployFolder('preview', 'never live', '--preview');
    await deployFolder('live-2', 'live two');

    const back = await runCli(['rollback', site, '--yes'], { env: as(session.alice) });
    expect(back.code, back.stderr).toBe(0);
    expect(await getFromSite(session.service, site, '/')).toEqual({ status: 200, body: 'live one' });
    const listed = JSON.parse((await runCli(['deployments', site, '--json'], { env: as(session.alice) })).stdout) as { live: boolean; liveUntil: string | null }[];
    // Newest first: live two (taken off the air), the preview (never live), live one (live again).
    expect(listed.map(({ live, liveUntil }) => [live, liveUntil === null])).toEqual([[false, false], [false, true], [true, true]]);

    const further = await runCli(['rollback', site, '--yes'], { env: as(session.alice) });
    expect(further.code).toBe(4);
    expect(further.stderr).toContain('no deployment older than the live one that was live');
    expect(await getFromSite(session.service, site, '/')).toEqual({ status: 200, body: 'live one' });
  });

  it('resumes after a dropped connection, sending what is still missing', async () => {
    const resumed = 'cli-resumed.example';
    expect((await runCli(['deploy', await writeTree(join(session.work, 'resumed-v1'), { 'index.html': 'v1' }), '--domain', resumed], { env: as(session.alice) })).code).toBe(0);
    const files = Object.fromEntries(['a', 'b', 'c'].map((name) => [`${name}.txt`, randomBytes(3 * 1024 * kiB).toString('base64')]));
    const big = await writeTree(join(session.work, 'resumed-v2'), files);
    // Cut in the middle of the first upload request.
    const cutting = await startCountingRelay(session.service.port, { dropOnceAfterBytes: 2 * 1024 * kiB });
    try {
      const run = await runCli(['deploy', big, '--domain', resumed], { env: { ...as(session.alice), SITEHOST_ORIGIN: cutting.origin } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^The upload was interrupted \(Could not reach .*\); resuming with 3 files still to send…$/m);
      expect(run.stdout).toContain('Deployed 3 files (12 MiB)');
    } finally {
      await cutting.close();
    }
    for (const [path, body] of Object.entries(files)) expect((await getFromSite(session.service, resumed, `/${path}`)).body === body, path).toBe(true);
  });
});
