import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { timestamp } from '../../src/http/time';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { abandonedUploadMs } from '../../src/coordinator/records/uploads';
import worker from '../../src/index';
import { getSite } from '../../src/storage/sites-table';
import { authorized, deploy, token } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { liveFiles, liveKeys, storedKeys } from '../support/live-files';
import { type Subscriber, subscribe } from '../events/subscriber';



/** The coordinator of `domain` stops (as a runtime killed mid-change would) right after `binding`'s `method` did its work. */
async function stopAfter(domain: string, binding: 'DB' | 'NOTIFICATIONS', method: 'batch' | 'send'): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator, state) => {
    const real = env[binding] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const stopping = {
      prepare: (query: string) => env.DB.prepare(query),
      [method]: async (...args: unknown[]) => {
        const result = await real[method]!.apply(real, args);
        state.abort(`stopped after ${binding}.${method}`);
        return result;
      },
    };
    (instance as unknown as { env: typeof env }).env = { ...env, [binding]: stopping };
  });
}

/** What the alarm left for after a stop does: the restarted coordinator settles the change. */
async function recover(domain: string): Promise<void> {
  expect(await runDurableObjectAlarm(coordinatorOf(domain))).toBe(true);
}

/**
 * Events of `domain` of `type`, once every notification sent before now has been logged: a
 * configuration edit made afterwards is the marker (the coordinator sends in order).
 */
async function eventsAfterSettling(subscriber: Subscriber, domain: string, type: string): Promise<string[]> {
  const markers = () => subscriber.of([domain]).filter((event) => event.event === 'configuration-update');
  // Counted before the edit: its event is logged before it answers.
  const before = markers().length;
  const marker = await authorized(`/v2/sites/${domain}/configuration`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ headers: [{ fields: { 'x-marker': 'yes' } }] }),
  });
  expect(marker.status).toBe(200);
  await subscriber.until(() => markers().length > before, 10_000);
  return subscriber
    .of([domain])
    .filter((event) => event.event === type)
    .map((event) => event.data);
}

describe('a coordinator that stops between its D1 commit and what follows', () => {
  it('announces the deploy exactly once after recovery and retires the replaced deployment', async () => {
    const domain = 'crash-deploy.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const replaced = await liveKeys(domain);

    await stopAfter(domain, 'DB', 'batch');
    const response = await deploy(domain, { 'index.html': 'two' });
    expect(response.status).toBe(500);
    // The switch committed before the stop: the new deployment is live.
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'two' });

    await recover(domain);
    const live = (await getSite(env.DB, domain))!;
    const deployEvent = JSON.stringify({
      type: 'site-deploy',
      domain,
      isNewDomain: false,
      hasNewFiles: true,
      hasNewConfiguration: false,
      deploymentId: live.liveDeploymentId,
      committedAt: timestamp(live.modified),
      provenance: { credential: 'jwt' },
    });
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.data === deployEvent), 10_000);
    expect((await eventsAfterSettling(subscriber, domain, 'site-deploy')).filter((data) => data === deployEvent)).toHaveLength(1);

    // The replaced deployment falls out of the kept window (DEPLOYMENTS_KEPT=1 in tests): its objects go after the grace period (1 s).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    const kept = await liveKeys(domain);
    expect(kept.some((key) => replaced.includes(key))).toBe(false);
    expect(await storedKeys(domain)).toEqual(kept);
    await subscriber.close();
  });

  it('announces a configuration edit exactly once after recovery', async () => {
    const domain = 'crash-configuration.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    await stopAfter(domain, 'DB', 'batch');
    const edit = await authorized(`/v2/sites/${domain}/configuration`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fallback: '/index.html' }),
    });
    expect(edit.status).toBe(500);
    await recover(domain);
    // The marker is a configuration edit too: the recovered one and the marker.
    expect(await eventsAfterSettling(subscriber, domain, 'configuration-update')).toHaveLength(2);
    await subscriber.close();
  });

  it('finishes an unpublish after recovery: its event once, and no object left', async () => {
    const domain = 'crash-unpublish.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    await stopAfter(domain, 'DB', 'batch');
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(500);
    expect(await getSite(env.DB, domain)).toBeNull();

    await recover(domain);
    expect(await storedKeys(domain)).toEqual([]);
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.event === 'site-delete'), 10_000);
    // Redeploying is the marker here: the site is gone.
    expect((await deploy(domain, { 'index.html': 'again' })).status).toBe(200);
    await subscriber.until(() => subscriber.of([domain]).filter((event) => event.event === 'site-deploy').length === 2, 10_000);
    expect(subscriber.of([domain]).map((event) => event.event)).toEqual(['site-deploy', 'site-delete', 'site-deploy']);
    await subscriber.close();
  });

  it('logs a notification sent again after a stop only once', async () => {
    const domain = 'crash-resend.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    // The event is sent, then the coordinator stops before it notes so: recovery sends it again.
    await stopAfter(domain, 'NOTIFICATIONS', 'send');
    expect((await deploy(domain, { 'index.html': 'two' })).status).toBe(500);
    await recover(domain);
    const redeploys = (await eventsAfterSettling(subscriber, domain, 'site-deploy')).filter((data) => JSON.parse(data).isNewDomain === false);
    expect(redeploys).toHaveLength(1);
    await subscriber.close();
  });
});

/** A multipart upload the Worker began, and a Worker that stops while aborting it. */
interface CutOffUpload {
  key: string;
  uploadId: string;
}

/**
 * Sends a deploy of one 6 MiB file (so its pack is a multipart upload) whose client goes away
 * after the first part, through a Worker that stops before it can abort the upload.
 */
async function deployCutOffByCrash(domain: string): Promise<CutOffUpload> {
  const uploads: CutOffUpload[] = [];
  const files = new Proxy(env.FILES, {
    get(target, property) {
      if (property !== 'createMultipartUpload') return (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target);
      return async (key: string) => {
        const upload = await target.createMultipartUpload(key);
        uploads.push({ key, uploadId: upload.uploadId });
        return {
          key: upload.key,
          uploadId: upload.uploadId,
          uploadPart: upload.uploadPart.bind(upload),
          complete: upload.complete.bind(upload),
          abort: () => Promise.reject(new Error('the Worker stopped')),
        };
      };
    },
  });
  const boundary = 'crash-safety-boundary';
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream({
    // A byte stream: the deploy reads its body with a BYOB reader.
    type: 'bytes',
    pull(controller) {
      if (sent === 0) {
        controller.enqueue(encoder.encode(`--${boundary}\r\ncontent-disposition: form-data; name="directory"; filename="big.bin"\r\n\r\n`));
      }
      if (sent < 6) {
        controller.enqueue(new Uint8Array(1024 * 1024));
        sent++;
      } else {
        controller.error(new Error('client went away'));
      }
    },
  });
  const request = new Request(`http://localhost/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await token()}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, FILES: files }, ctx);
  await waitOnExecutionContext(ctx);
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(uploads).toHaveLength(1);
  return uploads[0]!;
}

/** Whether R2 still holds the unfinished upload: it takes another part only then. */
async function stillOpen(upload: CutOffUpload): Promise<boolean> {
  return env.FILES.resumeMultipartUpload(upload.key, upload.uploadId)
    .uploadPart(2, new Uint8Array(1))
    .then(
      () => true,
      () => false,
    );
}

describe('uploads cut off by a crash', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are aborted by an unpublish', async () => {
    const domain = 'crash-upload-unpublish.example';
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    const upload = await deployCutOffByCrash(domain);
    expect(await stillOpen(upload)).toBe(true);

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await stillOpen(upload)).toBe(false);
    expect(await storedKeys(domain)).toEqual([]);
  });

  it('are aborted by the alarm once abandoned, and the site is left as it was', async () => {
    const domain = 'crash-upload-abandoned.example';
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    const before = await liveKeys(domain);
    const upload = await deployCutOffByCrash(domain);
    // Within the hour the upload may be a slow one still under way.
    await runDurableObjectAlarm(coordinatorOf(domain));
    expect(await stillOpen(upload)).toBe(true);

    // Date alone is faked: the coordinator runs in this isolate and reads the same clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + abandonedUploadMs + 1000);
    expect(await runDurableObjectAlarm(coordinatorOf(domain))).toBe(true);
    vi.useRealTimers();
    expect(await stillOpen(upload)).toBe(false);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'home' });
    expect(await storedKeys(domain)).toEqual(before);
  });
});
