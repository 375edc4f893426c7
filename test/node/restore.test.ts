import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// wrangler's own local runtime (the version wrangler ships): it reads and writes the R2 state the service left.
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { copyMigratedState } from './support/migrated-state';
import { waitFor } from './support/processes';
import { type Service, getFromSite, runCron, startService, token } from './support/service';

/**
 * docs/operating.md's restore procedure, end to end on the local service: D1 goes back to an
 * earlier point (locally, a copy of its database file taken then), the objects collected since
 * are copied back from the backup, the service restarts with its coordinators' storage as it was,
 * the daily sweep runs, and an operator reconciles each site. The restored sites serve, the sweep
 * deletes none of what D1 names, each user's bytes are what their sites store, and a feed cursor
 * from after the restore point is answered 410.
 */

const live = 'restore-live.example';
const unpublished = 'restore-unpublished.example';
const user = 'github|restorer';
/** Tests keep one deployment; what a change frees is deleted at once; the sweep's grace is 0 (nothing is in flight when it runs). */
const vars = { DEPLOYMENTS_KEPT: '1', DEPLOYMENTS_KEPT_DAYS: '0', RETIRED_DEPLOYMENT_GRACE_SECONDS: '0', ORPHAN_SWEEP_GRACE_SECONDS: '0' };
const cron = '17 3 * * *';

let persistDir: string;
let backupDir: string;
let service: Service | undefined;

afterAll(async () => {
  await service?.stop();
  for (const dir of [persistDir, backupDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

/** Where `wrangler dev --persist-to` keeps the state of each kind. */
const stateOf = (root: string, kind: 'd1' | 'r2') => join(root, 'v3', kind);

async function deploySite(running: Service, domain: string, content: string): Promise<void> {
  const form = new FormData();
  form.append('directory', new File([`<p>${content}</p>`], 'index.html', { type: 'text/html' }));
  const response = await fetch(`${running.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${await token(running, user)}` }, body: form });
  expect(response.status).toBe(200);
}

type Bucket = Awaited<ReturnType<Miniflare['getR2Bucket']>>;

/** Runs `fn` on the R2 buckets of the stopped states `roots` (wrangler dev's `--persist-to` folders). */
async function withBuckets<T>(roots: string[], fn: (buckets: Bucket[]) => Promise<T>): Promise<T> {
  const runtimes = roots.map(
    (root) =>
      new Miniflare(
        convertV4MiniflareOptions({
          workers: [{ name: 'reader', modules: true, script: 'export default {}', r2Buckets: { FILES: 'sitehost-files' } }],
          resourcePersistencePath: join(root, 'v3'),
        }),
      ),
  );
  try {
    return await fn(await Promise.all(runtimes.map((runtime) => runtime.getR2Bucket('FILES'))));
  } finally {
    await Promise.all(runtimes.map((runtime) => runtime.dispose()));
  }
}

/** `rclone copy backup: r2: --ignore-existing`: every object of the backup the bucket lacks is copied back. Answers how many. */
async function copyBack(): Promise<number> {
  return withBuckets([backupDir, persistDir], async ([backup, bucket]) => {
    let copied = 0;
    for (const object of (await backup!.list({ prefix: 'sites/' })).objects) {
      if (await bucket!.head(object.key)) continue;
      const body = await backup!.get(object.key);
      await bucket!.put(object.key, await body!.arrayBuffer());
      copied++;
    }
    return copied;
  });
}

/** The bytes stored under the sites' prefixes of the stopped service. */
async function bytesStored(): Promise<number> {
  return withBuckets([persistDir], async ([bucket]) => {
    let bytes = 0;
    for (const domain of [live, unpublished]) for (const object of (await bucket!.list({ prefix: `sites/${domain}/` })).objects) bytes += object.size;
    return bytes;
  });
}

describe("docs/operating.md's restore", () => {
  it('serves the restored sites after the sweep, with their bytes counted and later cursors answered 410', async () => {
    persistDir = await mkdtemp(join(tmpdir(), 'sitehost-restore-'));
    backupDir = await mkdtemp(join(tmpdir(), 'sitehost-backup-'));
    await copyMigratedState(persistDir);
    service = await startService({ vars, persistDir });
    await deploySite(service, live, 'restored');
    await deploySite(service, unpublished, 'restored too');
    await service.stop();
    // The restore point: D1 as it is now (Time Travel keeps every minute), and the bucket's backup.
    await cp(stateOf(persistDir, 'd1'), join(backupDir, 'd1'), { recursive: true });
    await cp(stateOf(persistDir, 'r2'), stateOf(backupDir, 'r2'), { recursive: true });

    service = await startService({ vars, persistDir });
    // Changes lost by the restore: a deploy that collects the restored one, an unpublish, and a cursor given after them.
    await deploySite(service, live, 'lost');
    const unpublishing = await fetch(`${service.origin}/v2/sites/${unpublished}`, { method: 'DELETE', headers: { authorization: `Bearer ${await token(service, user)}` } });
    expect(unpublishing.status).toBe(200);
    const reader = async (running: Service) => ({ authorization: `Bearer ${await token(running, 'github|restore-reader', 'global_read')}` });
    const cursor = (await fetch(`${service.origin}/v2/configurations?limit=1`, { headers: await reader(service) })).headers.get('sitehost-cursor')!;
    expect(cursor).toBeTruthy();
    expect((await getFromSite(service, unpublished, '/')).status).toBe(404);
    await service.stop();

    // The restore: D1 to the restore point, the objects collected since copied back, the service restarted.
    await rm(stateOf(persistDir, 'd1'), { recursive: true, force: true });
    await cp(join(backupDir, 'd1'), stateOf(persistDir, 'd1'), { recursive: true });
    expect(await copyBack()).toBeGreaterThan(0);
    service = await startService({ vars, persistDir });
    const operator = { authorization: `Bearer ${await token(service, 'github|operator', 'admin')}` };
    for (const domain of [live, unpublished]) {
      const reconciled = await fetch(`${service.origin}/v2/sites/${domain}/reconcile`, { method: 'POST', headers: operator });
      expect(reconciled.status).toBe(200);
      // The live deployment D1 names is its coordinator's again: listed, and collected like any other later.
      const listed = await fetch(`${service.origin}/v2/sites/${domain}/deployments`, { headers: { authorization: `Bearer ${await token(service, user)}` } });
      const { deployments } = (await listed.json()) as { deployments: { id: string; live: boolean }[] };
      expect(deployments.filter((deployment) => deployment.live)).toHaveLength(1);
    }

    // The daily sweep, as the Cron Trigger runs it; it logs a line when done.
    const sweeps = () => [...service!.output().matchAll(/"message":"Swept sites for objects nothing holds"/g)].length;
    expect((await runCron(service, cron)).status).toBe(200);
    await waitFor(() => sweeps() > 0, 'the sweep', 60_000, [service]);
    expect(await getFromSite(service, live, '/')).toEqual({ status: 200, body: '<p>restored</p>' });
    expect(await getFromSite(service, unpublished, '/')).toEqual({ status: 200, body: '<p>restored too</p>' });

    const gone = await fetch(`${service.origin}/v2/configurations?${new URLSearchParams({ since: cursor })}`, { headers: await reader(service) });
    expect(gone.status).toBe(410);
    const usage = await fetch(`${service.origin}/v2/usage`, { headers: { authorization: `Bearer ${await token(service, user)}` } });
    const used = ((await usage.json()) as { bytes: { used: number } }).bytes.used;
    await service.stop();
    service = undefined;
    expect(used).toBe(await bytesStored());
  }, 280_000);
});
