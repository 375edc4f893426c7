import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import type { Deployment, DeployResult } from '../../src/common/api-types';
import type { SiteCoordinator } from '../../src/site/coordinator';
import { authorized, deploy, problemOf, token } from '../support/client';
import { sha256Hex } from '../support/deployments';
import { liveFiles } from '../support/live-files';
import { CallCounter, metered } from '../support/metered';

function begin(domain: string, files: Record<string, string>, configuration?: unknown) {
  return authorized(`/v2/sites/${domain}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ files, ...(configuration === undefined ? {} : { configuration }) }),
  });
}

async function manifestOf(files: Record<string, string>): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(Object.entries(files).map(async ([path, content]) => [path, await sha256Hex(content)])));
}

async function blobForm(contents: string[], named?: string): Promise<FormData> {
  const form = new FormData();
  for (const content of contents) form.append('blob', new File([content], named ?? (await sha256Hex(content))));
  return form;
}

function sendBlobs(domain: string, id: string, body: BodyInit, headers: HeadersInit = {}) {
  return authorized(`/v2/sites/${domain}/deployments/${id}/blobs`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
}

function finalize(domain: string, id: string, body?: unknown) {
  return authorized(`/v2/sites/${domain}/deployments/${id}/finalize`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

describe('incremental deploys', () => {
  it('answers only the hashes the site lacks, once each, and finalizes live', async () => {
    const domain = 'incremental.example';
    await deploy(domain, { 'index.html': 'same', 'old.html': 'old' });
    const files = { 'index.html': 'same', 'a.html': 'new', 'b.html': 'new', 'empty.txt': '' };
    const response = await begin(domain, await manifestOf(files));
    expect(response.status).toBe(201);
    const pending = await response.json<Deployment>();
    expect(pending).toMatchObject({ state: 'uploading', live: false, source: 'incremental', missing: [await sha256Hex('new')] });
    expect(response.headers.get('location')).toBe(`/v2/sites/${domain}/deployments/${pending.id}`);

    const conflict = await finalize(domain, pending.id);
    expect(conflict.status).toBe(409);
    expect((await problemOf(conflict)).missing).toEqual([await sha256Hex('new')]);

    const sent = await sendBlobs(domain, pending.id, await blobForm(['new']));
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ state: 'uploading', missing: [] });
    const done = await finalize(domain, pending.id);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ type: 'site-deploy', domain, hasNewFiles: true, deploymentId: pending.id });
    expect(await liveFiles(domain)).toEqual(files);
    const listed = await authorized(`/v2/sites/${domain}/deployments/${pending.id}`);
    expect(await listed.json()).toMatchObject({ state: 'ready', live: true, fileCount: 4, totalBytes: 10 });
  });

  it("lets a first deploy's creator, and no other user, ask what is still missing before the site exists", async () => {
    const domain = 'first-resume.example';
    const files = { 'index.html': 'first' };
    const begun = await (await begin(domain, await manifestOf(files))).json<Deployment>();
    const asked = await authorized(`/v2/sites/${domain}/deployments/${begun.id}`);
    expect(asked.status).toBe(200);
    expect(await asked.json()).toMatchObject({ id: begun.id, state: 'uploading', missing: [await sha256Hex('first')] });
    const stranger = await authorized(`/v2/sites/${domain}/deployments/${begun.id}`, {}, { user: 'github|2' });
    expect(stranger.status).toBe(403);
  });

  it('refuses a blob whose bytes do not hash to its name with 400, storing nothing of it', async () => {
    const domain = 'mismatch.example';
    await deploy(domain, { 'index.html': 'v1' });
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'v2' }))).json<Deployment>();
    const response = await sendBlobs(domain, pending.id, await blobForm(['forged'], await sha256Hex('v2')));
    expect(response.status).toBe(400);
    const again = await authorized(`/v2/sites/${domain}/deployments/${pending.id}`);
    expect((await again.json<Deployment>()).missing).toEqual([await sha256Hex('v2')]);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'v1' });
  });

  it('refuses a blob larger than MAX_FILE_BYTES with 413 naming it, storing nothing of it', async () => {
    const domain = 'big-blob.example';
    await deploy(domain, { 'index.html': 'v1' });
    const big = 'x'.repeat(64);
    const pending = await (await begin(domain, await manifestOf({ 'index.html': big }))).json<Deployment>();
    const request = new Request(`http://localhost/v2/sites/${domain}/deployments/${pending.id}/blobs`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token()}` },
      body: await blobForm([big]),
    });
    const ctx = createExecutionContext();
    const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, MAX_FILE_BYTES: '32' }, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(413);
    expect(await problemOf(response)).toMatchObject({ limit: 'MAX_FILE_BYTES', value: 32 });
    const again = await authorized(`/v2/sites/${domain}/deployments/${pending.id}`);
    expect((await again.json<Deployment>()).missing).toEqual([await sha256Hex(big)]);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'v1' });
  });

  it('leaves nothing live when the upload is interrupted, and resumes with what is still missing', async () => {
    const domain = 'resume.example';
    await deploy(domain, { 'index.html': 'before' });
    const files = { 'index.html': 'after', 'big.bin': 'x'.repeat(200_000) };
    const pending = await (await begin(domain, await manifestOf(files))).json<Deployment>();
    expect(pending.missing).toHaveLength(2);

    const boundary = 'resume-boundary';
    const encoder = new TextEncoder();
    const part = async (content: string) =>
      `--${boundary}\r\ncontent-disposition: form-data; name="blob"; filename="${await sha256Hex(content)}"\r\n\r\n`;
    const head = encoder.encode(`${await part('after')}after\r\n${await part(files['big.bin'])}`);
    let pulled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // The connection drops a while after the first bytes arrived, as a network does.
        if (pulled) {
          setTimeout(() => controller.error(new Error('connection dropped')), 300);
          return;
        }
        pulled = true;
        controller.enqueue(head);
        controller.enqueue(encoder.encode('x'.repeat(50_000)));
      },
    });
    const cut = await sendBlobs(domain, pending.id, body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(cut.status).toBeGreaterThanOrEqual(400);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before' });
    const status = await (await authorized(`/v2/sites/${domain}/deployments/${pending.id}`)).json<Deployment>();
    expect(status.missing).toEqual([await sha256Hex(files['big.bin'])]);
    expect((await finalize(domain, pending.id)).status).toBe(409);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before' });

    expect((await sendBlobs(domain, pending.id, await blobForm([files['big.bin']]))).status).toBe(200);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('finalizes a preview without making it live', async () => {
    const domain = 'incremental-preview.example';
    await deploy(domain, { 'index.html': 'live' });
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'live' }), { fallback: '/index.html' })).json<Deployment>();
    expect(pending.missing).toEqual([]);
    const response = await finalize(domain, pending.id, { preview: true });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: pending.id, live: false, state: 'ready' });
    const configuration = await authorized(`/v2/sites/${domain}/configuration`);
    expect((await configuration.json<{ configuration: unknown }>()).configuration).toEqual({});
  });

  it('applies the multipart deploy’s path rules and limits', async () => {
    const domain = 'incremental-rules.example';
    const hash = await sha256Hex('x');
    expect((await begin(domain, { '../escape.html': hash })).status).toBe(400);
    expect((await begin(domain, { a: hash, 'a/b.html': hash })).status).toBe(400);
    expect((await begin(domain, { 'a.html': 'not-a-hash' })).status).toBe(400);
    const tooMany = Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`p${i}.html`, hash]));
    const refused = await begin(domain, tooMany);
    expect(refused.status).toBe(413);
    expect(await problemOf(refused)).toMatchObject({ limit: 'MAX_FILES', value: 20_000 });
    // The common top folder is dropped, as a browser's directory upload names files.
    const pending = await (await begin(domain, { 'dist/index.html': hash })).json<Deployment>();
    await sendBlobs(domain, pending.id, await blobForm(['x']));
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'x' });
    // A blob no file of the manifest names is refused.
    const other = await (await begin(domain, { 'index.html': await sha256Hex('y') })).json<Deployment>();
    expect((await sendBlobs(domain, other.id, await blobForm(['z']))).status).toBe(400);
  });

  it('redeploys 20,000 files with one changed within 1,000 platform calls', async () => {
    const domain = 'incremental-many.example';
    const files: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) files[`section-${i % 50}/page-${i}.html`] = `<p>page ${i}</p>`;
    const form = new FormData();
    for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], path));
    expect((await authorized(`/v2/sites/${domain}`, { method: 'PUT', body: form })).status).toBe(200);
    files['section-0/page-0.html'] = '<p>changed</p>';
    const manifest = await manifestOf(files);

    const counter = new CallCounter();
    const countedEnv = metered(env, counter);
    await runInDurableObject(env.SITES.get(env.SITES.idFromName(domain)), (instance: SiteCoordinator) => {
      (instance as unknown as { env: typeof env }).env = metered(env, counter);
    });
    const send = async (path: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${await token()}`);
      const ctx = createExecutionContext();
      const request = new Request(`http://localhost${path}`, { ...init, headers });
      const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, countedEnv, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const pending = await (
      await send(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: manifest }) })
    ).json<Deployment>();
    expect(pending.missing).toEqual([await sha256Hex('<p>changed</p>')]);
    expect((await send(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm(['<p>changed</p>']) })).status).toBe(200);
    const done = await send(`/v2/sites/${domain}/deployments/${pending.id}/finalize`, { method: 'POST' });
    expect(done.status).toBe(200);
    expect((await done.json<DeployResult>()).deploymentId).toBe(pending.id);
    console.log(`platform calls for an incremental redeploy of 20,000 files: ${counter.total}`, counter.byKind());
    expect(counter.total).toBeLessThanOrEqual(1000);
  });
});
