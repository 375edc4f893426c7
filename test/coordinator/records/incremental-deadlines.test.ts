import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Deployment } from '../../../src/common/api-types';
import { settingsOf } from '../../../src/platform/settings';
import { abandonedIncrementalMs, deadlineOf } from '../../../src/coordinator/records/kept-window';
import { newDeploymentId } from '../../../src/coordinator/records/deployment-id';
import { keys } from '../../../src/storage/file-index';
import { call, deploy } from '../../support/client';
import { coordinatorOf, keptDeployment, sha256Hex, storedObjects } from '../../support/deployments';
import { begin, blobForm, finalize, manifestOf, sendBlobs } from '../../support/incremental';
import { liveFiles } from '../../support/live-files';

const graceMs = settingsOf(env).retiredDeploymentGraceSeconds * 1000;

/** Begins an incremental deploy of `files` and uploads every blob it lacks, without finalizing it: its id and when it began. */
async function beginAndUpload(domain: string, files: Record<string, string>): Promise<{ id: string; created: number }> {
  const begun = await begin(domain, await manifestOf(files));
  expect(begun.status).toBe(201);
  const { id, missing } = await begun.json<Deployment>();
  const lacking: string[] = [];
  for (const content of new Set(Object.values(files))) if (missing!.includes(await sha256Hex(content))) lacking.push(content);
  expect((await sendBlobs(domain, id, await blobForm(lacking))).status).toBe(200);
  return { id, created: (await keptDeployment(domain, id))!.created };
}

/** Moves the clock the coordinator reads (it runs in this isolate) to `time`. */
function at(time: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(time);
}

/** Runs `domain`'s alarm at `time`; whether one was set. */
async function alarmAt(domain: string, time: number): Promise<boolean> {
  at(time);
  return runDurableObjectAlarm(coordinatorOf(domain));
}

/** Runs `domain`'s alarm just past `deadline`, which collects, then past the grace period, which deletes the objects: each one set. */
async function collectAfter(domain: string, deadline: number): Promise<void> {
  expect(await alarmAt(domain, deadline + 1000)).toBe(true);
  expect(await alarmAt(domain, deadline + 1000 + graceMs + 1000)).toBe(true);
}

async function alarmTime(domain: string): Promise<number | null> {
  return runInDurableObject(coordinatorOf(domain), (_, state) => state.storage.getAlarm());
}

/** The packs whose hashes D1 still lists for `domain`. */
async function packsWithBlobs(domain: string): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT DISTINCT pack FROM site_blobs WHERE domain = ? ORDER BY pack').bind(domain).all<{ pack: string }>();
  return results.map((row) => row.pack);
}

function totalBytes(objects: Map<string, number>): number {
  return [...objects.values()].reduce((sum, size) => sum + size, 0);
}

describe('incremental deploys left unfinished', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are collected at their deadline on a site that never commits again, freeing only their objects after the grace period', async () => {
    const domain = 'abandoned-incremental.example';
    expect((await deploy(domain, { 'index.html': 'live', 'style.css': 'shared' })).status).toBe(200);
    const before = await storedObjects(domain);
    const livePacks = await packsWithBlobs(domain);
    const { id, created } = await beginAndUpload(domain, { 'index.html': 'next', 'style.css': 'shared', 'big.bin': 'x'.repeat(10_000) });
    const abandoned = await storedObjects(domain);
    // Its manifest and the pack of its blobs; the shared file was not sent again.
    const added = [...abandoned.keys()].filter((key) => !before.has(key));
    expect(added).toHaveLength(2);
    expect(totalBytes(abandoned) - totalBytes(before)).toBeGreaterThan(10_000);

    // A minute before its deadline it may be a slow upload still under way.
    expect(await alarmAt(domain, deadlineOf(created) - 60_000)).toBe(true);
    expect(await storedObjects(domain)).toEqual(abandoned);
    expect((await keptDeployment(domain, id))?.state).toBe('uploading');

    // At its deadline its rows go at once; its objects stay through the grace period, for reads in flight.
    expect(await alarmAt(domain, deadlineOf(created) + 1000)).toBe(true);
    expect(await keptDeployment(domain, id)).toBeNull();
    expect(await packsWithBlobs(domain)).toEqual(livePacks);
    expect(await storedObjects(domain)).toEqual(abandoned);

    expect(await alarmAt(domain, deadlineOf(created) + 1000 + graceMs + 1000)).toBe(true);
    const after = await storedObjects(domain);
    expect(after.size).toBe(before.size);
    expect(totalBytes(after)).toBe(totalBytes(before));
    expect(after).toEqual(before);
    // Nothing is left to do.
    expect(await alarmTime(domain)).toBeNull();

    vi.useRealTimers();
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live', 'style.css': 'shared' });
    expect(await (await call(`http://${domain}/`)).text()).toBe('live');
  });

  it('keep one still within its deadline, and the alarm is set for that deadline', async () => {
    const domain = 'abandoned-one-of-two.example';
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    const before = await storedObjects(domain);
    const first = await beginAndUpload(domain, { 'index.html': 'first' });
    const firstObjects = [...(await storedObjects(domain)).keys()].filter((key) => !before.has(key));
    expect(await alarmTime(domain)).toBe(deadlineOf(first.created));

    at(first.created + abandonedIncrementalMs / 2);
    const second = await beginAndUpload(domain, { 'index.html': 'second' });
    const withBoth = await storedObjects(domain);

    await collectAfter(domain, deadlineOf(first.created));
    expect(await keptDeployment(domain, first.id)).toBeNull();
    expect((await keptDeployment(domain, second.id))?.state).toBe('uploading');
    expect(await storedObjects(domain)).toEqual(new Map([...withBoth].filter(([key]) => !firstObjects.includes(key))));
    expect(await alarmTime(domain)).toBe(deadlineOf(second.created));

    await collectAfter(domain, deadlineOf(second.created));
    expect(await keptDeployment(domain, second.id)).toBeNull();
    expect(await storedObjects(domain)).toEqual(before);
  });

  it('are never collected once finalized', async () => {
    const domain = 'finalized-incremental.example';
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    const finalized = await beginAndUpload(domain, { 'index.html': 'preview' });
    const beforeAbandoned = await storedObjects(domain);
    const abandoned = await beginAndUpload(domain, { 'index.html': 'abandoned' });
    const abandonedObjects = [...(await storedObjects(domain)).keys()].filter((key) => !beforeAbandoned.has(key));
    expect((await finalize(domain, finalized.id, { preview: true })).status).toBe(200);
    const afterFinalize = await storedObjects(domain);

    // Both deadlines pass: the alarm collects the deploy left unfinished, and only it.
    await collectAfter(domain, deadlineOf(abandoned.created));
    expect(await keptDeployment(domain, abandoned.id)).toBeNull();
    expect((await keptDeployment(domain, finalized.id))?.state).toBe('ready');
    expect(await storedObjects(domain)).toEqual(new Map([...afterFinalize].filter(([key]) => !abandonedObjects.includes(key))));

    vi.useRealTimers();
    expect(await (await call(`http://${domain}/`)).text()).toBe('live');
    expect(await (await call(`http://${finalized.id}.preview.localhost/`)).text()).toBe('preview');
  });

  it('leave no manifest behind when the Worker stopped before writing the deployment', async () => {
    const domain = 'unwritten-incremental.example';
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    const before = await storedObjects(domain);
    // What beginIncremental does until it stops: the deadline recorded, the manifest stored, no row.
    const id = newDeploymentId();
    const created = Date.now();
    await coordinatorOf(domain).beginIncremental(domain, id, created);
    await env.FILES.put(keys.manifest(domain, id), '{"files":[]}');

    expect(await alarmAt(domain, deadlineOf(created) + 1000)).toBe(true);
    expect(await storedObjects(domain)).toEqual(before);
    expect(await alarmTime(domain)).toBeNull();
  });
});
