import { createExecutionContext, createScheduledController, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiteCoordinator } from '../../../src/coordinator/coordinator';
import { sweepOrphanedObjects } from '../../../src/coordinator/sweeps/orphan-sweeps';
import worker from '../../../src/index';
import { settingsOf } from '../../../src/platform/settings';
import { authorized, deploy, deployForm, token } from '../../support/client';
import { coordinatorOf, keepDeployments, keptDeployments } from '../../support/deployments';
import { begin, blobForm, manifestOf, sendBlobs } from '../../support/incremental';
import { liveFiles, liveKeys, storedKeys } from '../../support/live-files';

const graceMs = settingsOf(env).orphanSweepGraceSeconds * 1000;

/**
 * A deploy whose Worker stored its pack and index and then lost its coordinator (the runtime
 * stopped before the commit): the objects stay, held by nothing. Answers what it stored.
 */
async function deployCutBeforeCommit(domain: string, files: Record<string, string>): Promise<string[]> {
  const before = new Set(await storedKeys(domain));
  const stopped = new Proxy(env.SITES, {
    get(target, property) {
      if (property !== 'get') return (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target);
      // The coordinator answers what the Worker asks before the commit, and stops at the commit: nothing after it runs (the discard of what the deploy wrote included).
      return (id: DurableObjectId) => {
        const stub = target.get(id);
        const stoppedAt = new Set<string | symbol>(['deploy', 'discard']);
        return new Proxy(stub, { get: (real, method) => (stoppedAt.has(method) ? () => Promise.reject(new Error('the runtime stopped')) : Reflect.get(real, method)) });
      };
    },
  });
  const request = new Request(`http://localhost/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await token()}` },
    body: deployForm(files),
  });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, SITES: stopped }, ctx);
  await waitOnExecutionContext(ctx);
  expect(response.status).toBe(500);
  const left = (await storedKeys(domain)).filter((key) => !before.has(key));
  expect(left).toHaveLength(2);
  return left;
}

/** Runs the daily Cron Trigger at `at` (ms), as the platform would, with the clock there too. */
async function runDailyCron(at = Date.now()): Promise<void> {
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: '17 3 * * *' }), env);
}

/** Moves the clock the coordinators read (they run in this isolate) `ms` ahead; R2's upload times stay real. */
function clockAhead(ms: number): number {
  const at = Date.now() + ms;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
  return at;
}

describe('the daily sweep of objects nothing holds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes what a deploy cut before its commit left, once past the grace, and nothing any deployment or upload holds', async () => {
    const domain = 'sweep-site.example';
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    await keepDeployments(domain, 5);
    expect((await deploy(domain, { 'index.html': 'kept', 'a.css': 'a' })).status).toBe(200);
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    // An incremental deploy still uploading: its manifest and the pack of the blobs it has.
    const pending = (await (await begin(domain, await manifestOf({ 'b.html': 'b', 'c.html': 'c' }))).json()) as { id: string };
    expect((await sendBlobs(domain, pending.id, await blobForm(['b']))).status).toBe(200);
    // An upload the coordinator recorded, whose pack is complete but not yet committed.
    const recorded = `sites/${domain}/packs/recorded-upload`;
    await env.FILES.put(recorded, 'bytes');
    await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => instance.beginUpload(domain, recorded, 'upload-id'));
    // An incremental deploy recorded with the coordinator, whose Worker has stored its manifest but not yet its row.
    const recordedManifest = `sites/${domain}/deployments/about-to-store.manifest.json`;
    await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => instance.beginIncremental(domain, 'about-to-store', Date.now()));
    await env.FILES.put(recordedManifest, '{}');
    const held = await storedKeys(domain);

    const orphans = await deployCutBeforeCommit(domain, { 'index.html': 'never live' });
    await runDailyCron();
    // Within the grace a deploy may still be under way: nothing goes.
    expect(await storedKeys(domain)).toEqual([...held, ...orphans].sort());

    await runDailyCron(clockAhead(graceMs + 1000));
    expect(await storedKeys(domain)).toEqual(held);
    const uploading = (await keptDeployments(domain)).find((deployment) => deployment.id === pending.id)!;
    expect(held).toEqual(expect.arrayContaining([uploading.manifestKey!, ...uploading.packs, recorded, recordedManifest, ...(await liveKeys(domain))]));
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });

  it('leaves a collected deployment\'s objects to their deletion after the grace for reads in flight', async () => {
    const domain = 'sweep-retired.example';
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const retired = await liveKeys(domain);
    // Tests keep one deployment: the first falls out of the window, its objects deleted a second later.
    expect((await deploy(domain, { 'index.html': 'two' })).status).toBe(200);
    const live = await liveKeys(domain);
    await runDailyCron(clockAhead(graceMs + 1000));
    expect(await storedKeys(domain)).toEqual([...retired, ...live].sort());
    // Their own follow-up deletes them.
    expect(await runDurableObjectAlarm(coordinatorOf(domain))).toBe(true);
    expect(await storedKeys(domain)).toEqual(live);
  });

  it("keeps what D1 names, the live deployment and every preview host's, though its coordinator lost its records (a restore, lost storage)", async () => {
    const domain = 'sweep-lost-records.example';
    await keepDeployments(domain, 5);
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    const preview = await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'preview' }) });
    expect(preview.status).toBe(200);
    const held = await storedKeys(domain);
    // The coordinator's storage is gone (or older than D1's rows, after a restore): it records no deployment.
    await runInDurableObject(coordinatorOf(domain), async (_, state) => {
      await state.storage.deleteAll();
      state.abort('storage lost');
    }).catch(() => {});
    expect(await keptDeployments(domain)).toEqual([]);

    await runDailyCron(clockAhead(graceMs + 1000));
    expect(await storedKeys(domain)).toEqual(held);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });

  it("deletes a domain's objects when its first deploy was cut: a domain with no site", async () => {
    const domain = 'sweep-first.example';
    await deployCutBeforeCommit(domain, { 'index.html': 'first' });
    await runDailyCron(clockAhead(graceMs + 1000));
    expect(await storedKeys(domain)).toEqual([]);
    expect((await deploy(domain, { 'index.html': 'again' })).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'again' });
  });

  it('asks only the domains written to within two days past the grace, or since the scan two scans back', async () => {
    const domain = 'sweep-quiet.example';
    // No scan before: the runs above began theirs with clocks moved ahead.
    await env.DB.prepare("UPDATE bucket_scans SET after = NULL, started = 0, previous_started = 0, earlier_started = 0 WHERE name = 'orphans'").run();
    expect((await deploy(domain, { 'index.html': 'quiet' })).status).toBe(200);
    const soon = createScheduledController({ scheduledTime: Date.now() + 2 * 86_400_000 + graceMs - 1000 });
    expect(await sweepOrphanedObjects(soon, env)).toContain(domain);
    const later = () => createScheduledController({ scheduledTime: Date.now() + 2 * 86_400_000 + graceMs + 1000 });
    // The scan before `soon` (none) did not begin after the deploy: one more scan looks at it.
    expect(await sweepOrphanedObjects(later(), env)).toContain(domain);
    expect(await sweepOrphanedObjects(later(), env)).not.toContain(domain);
  });

  it('lists a bounded stretch of the bucket a run, and goes on from there at the next run', async () => {
    const domains = ['sweep-bounded-a.example', 'sweep-bounded-b.example', 'sweep-bounded-c.example'];
    for (const domain of domains) await deployCutBeforeCommit(domain, { 'index.html': domain });
    const bounds = { keysPerList: 2, listsPerRun: 1, domainsPerRun: 10 };
    const listed: string[] = [];
    const list = env.FILES.list.bind(env.FILES);
    const counting = new Proxy(env.FILES, {
      get: (target, property) => (property === 'list' ? async (options: R2ListOptions) => {
        const listing = await list(options);
        listed.push(...listing.objects.map((object) => object.key));
        return listing;
      } : (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target)),
    });
    const at = clockAhead(graceMs + 1000);
    const asked = new Set<string>();
    let runs = 0;
    // Each run lists two keys: the scan reaches every domain run after run, and then starts again.
    while (domains.some((domain) => !asked.has(domain)) && runs < 1000) {
      listed.length = 0;
      for (const domain of await sweepOrphanedObjects(createScheduledController({ scheduledTime: at }), { ...env, FILES: counting }, bounds)) asked.add(domain);
      expect(listed.length).toBeLessThanOrEqual(2);
      runs++;
    }
    expect(runs).toBeGreaterThan(1);
    for (const domain of domains) expect(await storedKeys(domain)).toEqual([]);
  });
});
