import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getFromSite } from '../support/service';
import { type ResettingRelay, startResettingRelay } from './resetting-relay';
import { runCli } from './run';
import { ciEnvironment, useCliSession, writeTree } from './session';

/**
 * The CLI on a network that resets connections (./resetting-relay.ts: the first request of each
 * kind fails once). What is safe to repeat is repeated: reads, a finalize (the service answers one
 * it did already as done), and blob uploads, which resume by asking what is still missing. The
 * reason is said once. A reset of the read after a refused patch is what once failed
 * test/node/cli/incremental.test.ts ("Could not reach …: ECONNRESET", exit code 6).
 */

const session = useCliSession();
let relay: ResettingRelay | undefined;

afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const retryLine = /^A request to http:\/\/127\.0\.0\.1:\d+ failed \((ECONNRESET|EPIPE)\); asking again \(at most 4 tries\)\.$/gm;

describe('a deploy through a relay that resets the first request of each kind', () => {
  it('succeeds, its finalize answered as done when asked again, and says why once', async () => {
    const domain = 'cli-retries.example';
    relay = await startResettingRelay(session.service.port, { failFirst: (kind) => (kind.endsWith('/finalize') ? 'lose-answer' : 'reset') });
    const files = { 'index.html': '<h1>Through resets</h1>', 'css/site.css': 'body{}', 'js/app.js': 'void 0' };
    const folder = await writeTree(join(session.work, 'retries'), files);
    const run = await runCli(['deploy', folder, '--domain', domain], { env: { ...ciEnvironment(session, session.alice), SITEHOST_ORIGIN: relay.origin } });
    expect(run.code, run.stderr).toBe(0);
    // The one request of a new site's deploy, reset: the manifest goes first then (not repeated: it makes a deployment), and the bytes after it.
    expect(relay.failedKinds()).toEqual([
      `GET /v2/sites/${domain}/info`,
      `POST /v2/sites/${domain}/deployments`,
      `PUT /v2/sites/${domain}/deployments/<id>/blobs`,
      `GET /v2/sites/${domain}/deployments/<id>`,
      `POST /v2/sites/${domain}/deployments/<id>/finalize`,
    ]);
    expect(run.stderr.match(retryLine)).toHaveLength(1);
    expect(run.stdout).toMatch(new RegExp(`^✔ Deployed 3 files \\(35 B\\) to ${domain.replace('.', '\\.')}: live \\(the service had finalized it when its answer was lost\\)$`, 'm'));
    for (const [path, body] of Object.entries(files)) expect(await getFromSite(session.service, domain, `/${path}`)).toEqual({ status: 200, body });
  });

  it('repeats the read after a patch the service refused (its base no longer kept), as the redeploy that once failed did', async () => {
    const domain = 'cli-retries-patch.example';
    relay = await startResettingRelay(session.service.port, { failFirst: (kind) => (kind === `POST /v2/sites/${domain}/deployments` ? 'pass' : 'reset'), disarmed: true });
    const env = { ...ciEnvironment(session, session.alice), SITEHOST_ORIGIN: relay.origin };
    const folder = await writeTree(join(session.work, 'retries-patch'), { 'index.html': 'v1', 'about.html': 'about' });
    expect((await runCli(['deploy', folder, '--domain', domain], { env })).code).toBe(0);
    // As though that deployment had been collected: the folder's record names one the site never had.
    const record = join(session.work, 'cache', 'sitehost', 'folders', `${createHash('sha256').update(resolve(folder)).digest('hex').slice(0, 32)}.deployed.json`);
    await writeFile(record, JSON.stringify({ ...JSON.parse(await readFile(record, 'utf8')), deploymentId: 'a'.repeat(26) }));
    await writeTree(folder, { 'index.html': 'v2' });

    relay.arm();
    const run = await runCli(['deploy', folder, '--domain', domain], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(relay.failedKinds()).toEqual([
      `POST /v2/sites/${domain}/deployments`,
      `GET /v2/sites/${domain}/info`,
      `PUT /v2/sites/${domain}/deployments/<id>/blobs`,
      `GET /v2/sites/${domain}/deployments/<id>`,
      `POST /v2/sites/${domain}/deployments/<id>/finalize`,
    ]);
    expect(run.stderr.match(retryLine)).toHaveLength(1);
    expect(run.stdout).toContain('Uploaded 1 file (2 B); skipped 1 file (5 B) already stored.');
    expect(await getFromSite(session.service, domain, '/index.html')).toEqual({ status: 200, body: 'v2' });
  });
});
