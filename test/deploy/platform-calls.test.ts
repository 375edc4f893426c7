/**
 * Platform calls (R2, D1, Durable Object and Queue operations that leave the isolate) for a
 * site of 20,000 small files: its first deploy, and an incremental redeploy with one file
 * changed, in three requests and in one. One site is built and deployed once for all of them.
 *
 * These count calls, not time: how long 20,000 files take is bench:deploy's figure. The test's
 * timeout only ends a run that hangs; a loaded machine must not fail it.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import type { Deployment, DeployResult } from '../../src/common/api-types';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import worker from '../../src/index';
import { token } from '../support/client';
import { sha256Hex } from '../support/deployments';
import { blobForm, manifestOf } from '../support/incremental';
import { liveFiles } from '../support/live-files';
import { CallCounter, metered } from '../support/metered';

const maxCalls = 1000;
const hangs = 10 * 60_000;

it(
  `deploys 20,000 small files, then redeploys them with one changed in three requests or in one, each within ${maxCalls} platform calls`,
  async () => {
    const domain = 'many-files.example';
    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    // The coordinator does its part of each deploy with its own bindings: count those too.
    await runInDurableObject(env.SITES.get(env.SITES.idFromName(domain)), (instance: SiteCoordinator) => {
      (instance as unknown as { env: typeof env }).env = metered(env, counter);
    });
    const send = async (path: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${await token()}`);
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(`http://localhost${path}`, { ...init, headers }) as Request<unknown, IncomingRequestCfProperties>, countedEnv, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };

    const files: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) files[`section-${i % 50}/page-${i}.html`] = `<p>page ${i}</p>`;
    const form = new FormData();
    for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], `site/${path}`));
    const first = await send(`/v2/sites/${domain}`, { method: 'PUT', body: form });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ hasNewFiles: true, isNewDomain: true });
    console.log(`platform calls for 20,000 files: ${counter.total}`, counter.byKind());
    expect(counter.calls).toContain('DO.deploy');
    // The coordinator writes the deploy's event into the event log itself.
    expect(counter.calls).toContain('DO.append');
    expect(counter.calls).toContain('D1.batch');
    expect(counter.total).toBeLessThanOrEqual(maxCalls);

    // An incremental redeploy with one file changed: the manifest, the blob, finalize.
    counter.calls.length = 0;
    files['section-0/page-0.html'] = '<p>changed</p>';
    const pending = await (
      await send(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf(files) }) })
    ).json<Deployment>();
    expect(pending.missing).toEqual([await sha256Hex('<p>changed</p>')]);
    expect((await send(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm(['<p>changed</p>']) })).status).toBe(200);
    const done = await send(`/v2/sites/${domain}/deployments/${pending.id}/finalize`, { method: 'POST' });
    expect(done.status).toBe(200);
    expect((await done.json<DeployResult>()).deploymentId).toBe(pending.id);
    console.log(`platform calls for an incremental redeploy of 20,000 files: ${counter.total}`, counter.byKind());
    expect(counter.total).toBeLessThanOrEqual(maxCalls);

    // The same in one request: the manifest, the changed blob and finalize.
    counter.calls.length = 0;
    files['section-1/page-1.html'] = '<p>changed too</p>';
    const body = new FormData();
    body.append('manifest', new Blob([JSON.stringify({ files: await manifestOf(files), finalize: 'live' })], { type: 'application/json' }));
    for (const [name, value] of await blobForm(['<p>changed too</p>'])) body.append(name, value);
    const inOne = await send(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
    expect(inOne.status).toBe(200);
    console.log(`platform calls for the same in one request: ${counter.total}`, counter.byKind());
    expect(counter.total).toBeLessThanOrEqual(maxCalls);
    expect((await liveFiles(domain))['section-1/page-1.html']).toBe('<p>changed too</p>');
  },
  hangs,
);
