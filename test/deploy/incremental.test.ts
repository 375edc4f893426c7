import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import type { Deployment, DeployResult } from '../../src/common/api-types';
import { authorized, deploy, problemOf, token } from '../support/client';
import { coordinatorOf, keepDeployments, sha256Hex, storedObjects } from '../support/deployments';
import { siteCoordinator } from '../../src/coordinator/coordinator-client';
import { getSite } from '../../src/storage/sites-table';
import { begin, blobForm, finalize, manifestOf, sendBlobs } from '../support/incremental';
import { liveFiles } from '../support/live-files';
import { packPartSize } from '../../src/storage/pack-writer';

/** One request: the manifest part (with `finalize`), then a blob part for each of `blobs`. */
async function deployInOne(domain: string, files: Record<string, string>, blobs: string[], finalize?: 'live' | 'preview') {
  const form = await blobForm(blobs);
  const manifest = new Blob([JSON.stringify({ files: await manifestOf(files), ...(finalize ? { finalize } : {}) })], { type: 'application/json' });
  const body = new FormData();
  body.append('manifest', manifest);
  for (const [name, value] of form) body.append(name, value);
  return authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
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
    // To anyone else the domain is not hosted, as for every read: nothing says the deployment exists.
    const stranger = await authorized(`/v2/sites/${domain}/deployments/${begun.id}`, {}, { user: 'github|2' });
    expect(stranger.status).toBe(404);
    expect(await problemOf(stranger)).toMatchObject({ type: '/problems/site-not-found' });
  });

  it('refuses blobs, with 403 and storing nothing, for a deploy begun before another user claimed the domain', async () => {
    const domain = 'first-claimed.example';
    const begun = await (await begin(domain, await manifestOf({ 'index.html': 'mine', 'guess.html': 'theirs' }))).json<Deployment>();
    expect((await deploy(domain, { 'index.html': 'theirs' }, undefined, { user: 'github|2' })).status).toBe(200);
    const before = await storedObjects(domain);

    const sent = await sendBlobs(domain, begun.id, await blobForm(['mine']));
    expect(sent.status).toBe(403);
    // The answer says nothing of what the other user's site stores.
    expect(await problemOf(sent)).not.toHaveProperty('missing');
    expect(await storedObjects(domain)).toEqual(before);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'theirs' });
    // The coordinator checks again, for a claim that lands while the blobs upload.
    const recorded = siteCoordinator(env, domain).addBlobs({ domain, userId: 'github|1', claims: true, deploymentId: begun.id, pack: `sites/${domain}/packs/late`, packBytes: 0, blobs: [] });
    await expect(recorded).rejects.toMatchObject({ status: 403 });
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

  it('keeps of a refused upload the blobs verified before the refused part, and none of its bytes', async () => {
    const domain = 'refused-part.example';
    await deploy(domain, { 'index.html': 'v1' });
    const files = { 'a.txt': 'good', 'b.txt': 'also good', 'c.bin': 'wanted' };
    const pending = await (await begin(domain, await manifestOf(files))).json<Deployment>();
    const before = await storedObjects(domain);
    const added = async () => [...(await storedObjects(domain))].filter(([key]) => !before.has(key)).map(([, size]) => size);
    const forged = async (good: string, forgedBytes: number) => {
      const form = await blobForm([good]);
      form.append('blob', new File([new Uint8Array(forgedBytes)], await sha256Hex('wanted')));
      return sendBlobs(domain, pending.id, form);
    };

    // Refused while the part being filled still holds it: the pack ends where the good blob does.
    expect((await forged('good', 64 * 1024)).status).toBe(400);
    expect(await added()).toEqual(['good'.length]);
    // Refused after more than a part was uploaded: that part, which holds the good blob, is kept whole and nothing after it.
    expect((await forged('also good', packPartSize + 1024 * 1024)).status).toBe(400);
    expect((await added()).sort((a, b) => a - b)).toEqual(['good'.length, packPartSize]);

    const status = await (await authorized(`/v2/sites/${domain}/deployments/${pending.id}`)).json<Deployment>();
    expect(status.missing).toEqual([await sha256Hex('wanted')]);
    expect((await sendBlobs(domain, pending.id, await blobForm(['wanted']))).status).toBe(200);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('answers a one-request deploy over the limits by its declared sizes, or with a bad alias, before its blobs arrive', async () => {
    const domain = 'early-refusal.example';
    await deploy(domain, { 'index.html': 'live' });
    const before = await storedObjects(domain);
    const big = await sha256Hex('big');
    const boundary = 'early-refusal';
    // The manifest part and the start of a blob whose rest never comes: only an answer that does not wait for it arrives.
    const withBlobsPending = (target: string, manifest: object) =>
      authorized(`/v2/sites/${target}/deployments`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(
              new TextEncoder().encode(
                `--${boundary}\r\ncontent-disposition: form-data; name="manifest"\r\n\r\n${JSON.stringify(manifest)}\r\n` +
                  `--${boundary}\r\ncontent-disposition: form-data; name="blob"; filename="${big}"\r\n\r\nbi`,
              ),
            );
          },
        }),
        duplex: 'half',
      } as RequestInit);

    const fivePaths = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [`${name}.bin`, big]));
    const tooLarge = await withBlobsPending(domain, { files: fivePaths, sizes: { [big]: 21 * 1024 * 1024 }, finalize: 'live' });
    expect(tooLarge.status).toBe(413);
    expect(await problemOf(tooLarge)).toMatchObject({ limit: 'MAX_TOTAL_BYTES' });
    const badAlias = await withBlobsPending('no-site-yet.example', { files: { 'index.html': big }, finalize: 'preview', alias: 'Not An Alias' });
    expect(badAlias.status).toBe(400);
    expect(await storedObjects(domain)).toEqual(before);
    expect(await storedObjects('no-site-yet.example')).toEqual(new Map());
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
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
    const before = await storedObjects(domain);
    const cut = await sendBlobs(domain, pending.id, body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(cut.status).toBeGreaterThanOrEqual(400);
    // The pack kept ends with the whole blob: none of the cut one's 50,000 bytes stay.
    expect([...(await storedObjects(domain))].filter(([key]) => !before.has(key)).map(([, size]) => size)).toEqual(['after'.length]);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before' });
    const status = await (await authorized(`/v2/sites/${domain}/deployments/${pending.id}`)).json<Deployment>();
    expect(status.missing).toEqual([await sha256Hex(files['big.bin'])]);
    expect((await finalize(domain, pending.id)).status).toBe(409);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before' });

    expect((await sendBlobs(domain, pending.id, await blobForm([files['big.bin']]))).status).toBe(200);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('collects every pack a deployment uploaded, also one whose bytes a concurrent deploy uploaded again', async () => {
    const domain = 'incremental-twice.example';
    await keepDeployments(domain, 1);
    await deploy(domain, { 'index.html': 'home' });
    const files = await manifestOf({ 'index.html': 'home', 'shared.txt': 'shared' });
    const first = await (await begin(domain, files)).json<Deployment>();
    const second = await (await begin(domain, files)).json<Deployment>();
    // The second upload of the same bytes is where the site finds them next: the first's index does not use its own pack.
    for (const { id } of [first, second]) expect((await sendBlobs(domain, id, await blobForm(['shared']))).status).toBe(200);
    for (const { id } of [first, second]) expect((await finalize(domain, id)).status).toBe(200);

    // Both fall out of the kept window of one; their objects go after the grace period.
    await deploy(domain, { 'index.html': 'last' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    const packs = [...(await storedObjects(domain)).keys()].filter((key) => key.startsWith(`sites/${domain}/packs/`));
    expect(packs).toEqual([(await getSite(env.DB, domain))!.deployment!.packs[0]]);
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

  it('answers a finalize asked again after it succeeded (its answer lost) as done, and only what is done', async () => {
    const domain = 'finalize-again.example';
    await deploy(domain, { 'index.html': 'v1' });
    const live = await (await begin(domain, await manifestOf({ 'index.html': 'v2' }))).json<Deployment>();
    expect((await sendBlobs(domain, live.id, await blobForm(['v2']))).status).toBe(200);
    expect((await finalize(domain, live.id)).status).toBe(200);
    const again = await finalize(domain, live.id);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ type: 'site-deploy', domain, deploymentId: live.id, unchanged: true });

    const preview = await (await begin(domain, await manifestOf({ 'index.html': 'v2' }), { fallback: '/index.html' })).json<Deployment>();
    expect((await finalize(domain, preview.id, { preview: true })).status).toBe(200);
    const previewAgain = await finalize(domain, preview.id, { preview: true });
    expect(previewAgain.status).toBe(200);
    expect(await previewAgain.json()).toMatchObject({ id: preview.id, live: false, state: 'ready' });
    // Live was not what became of the preview, nor is it another user's to ask: as before, nothing of theirs is uploading there.
    expect((await finalize(domain, preview.id)).status).toBe(404);
    const stranger = await authorized(`/v2/sites/${domain}/deployments/${live.id}/finalize`, { method: 'POST' }, { user: 'github|2' });
    expect(stranger.status).toBe(403);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'v2' });
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

  it('refuses, before any upload, a manifest whose declared sizes are over MAX_FILE_BYTES or MAX_TOTAL_BYTES', async () => {
    const domain = 'declared-sizes.example';
    await deploy(domain, { 'index.html': 'live', 'stored.bin': 'stored' });
    const before = await storedObjects(domain);
    const listed = async () => (await (await authorized(`/v2/sites/${domain}/deployments`)).json<{ deployments: Deployment[] }>()).deployments;
    const [live] = await listed();
    const [big, stored] = await Promise.all([sha256Hex('big'), sha256Hex('stored')]);
    const mib = 1024 * 1024;
    const manifest = (body: object) => authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // One content held by five paths counts five times: 5 × 21 MiB is over 100 MiB.
    const fivePaths = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [`${name}.bin`, big]));

    // Named by its path on the site: the common top folder is dropped.
    const fileTooLarge = await manifest({ files: { 'dist/index.html': big }, sizes: { [big]: 25 * mib + 1 } });
    expect(fileTooLarge.status).toBe(413);
    const fileProblem = await problemOf(fileTooLarge);
    expect(fileProblem).toMatchObject({ limit: 'MAX_FILE_BYTES', value: 25 * mib });
    expect(fileProblem.detail).toContain('The file "index.html" is 26214401 bytes');

    // A whole number past what a double holds exactly is still a size, and over the limit.
    const huge = await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"files": {"a.bin": "${big}"}, "sizes": {"${big}": 1e21}}` });
    expect(huge.status).toBe(413);
    expect(await problemOf(huge)).toMatchObject({ limit: 'MAX_FILE_BYTES' });

    const siteTooLarge = await manifest({ files: fivePaths, sizes: { [big]: 21 * mib } });
    expect(siteTooLarge.status).toBe(413);
    expect(await problemOf(siteTooLarge)).toMatchObject({ limit: 'MAX_TOTAL_BYTES', value: 100 * mib });
    const patchTooLarge = await manifest({ base: live!.id, files: fivePaths, sizes: { [big]: 21 * mib } });
    expect(patchTooLarge.status).toBe(413);
    expect(await problemOf(patchTooLarge)).toMatchObject({ limit: 'MAX_TOTAL_BYTES' });

    const malformed = [
      await manifest({ files: { 'index.html': big }, sizes: { [stored]: 6 } }),
      await manifest({ files: { 'index.html': big }, sizes: { [big]: -1 } }),
      await manifest({ files: { 'index.html': big }, sizes: { [big]: 1.5 } }),
      await manifest({ files: { 'index.html': big }, sizes: [3] }),
    ];
    for (const refused of malformed) expect(refused.status).toBe(400);
    expect((await problemOf(malformed[0]!)).detail).toContain(stored);
    expect(await storedObjects(domain)).toEqual(before);
    expect((await listed()).map((deployment) => deployment.id)).toEqual([live!.id]);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live', 'stored.bin': 'stored' });

    // Content the site stores counts at its stored size (6 bytes), whatever is declared of it.
    const fits = await manifest({ files: { ...Object.fromEntries(Object.entries(fivePaths).slice(0, 4)), 'stored.bin': stored }, sizes: { [big]: 21 * mib, [stored]: 25 * mib } });
    expect(fits.status).toBe(201);
    expect((await fits.json<Deployment>()).missing).toEqual([big]);
  });

  it('deploys in one request a manifest that comes with the blobs the site lacks', async () => {
    const domain = 'one-request.example';
    await deploy(domain, { 'index.html': 'same', 'old.html': 'old' });
    const files = { 'index.html': 'same', 'new.html': 'new' };
    const response = await deployInOne(domain, files, ['new'], 'live');
    expect(response.status).toBe(200);
    const result = await response.json<DeployResult>();
    expect(result).toMatchObject({ type: 'site-deploy', domain, hasNewFiles: true });
    expect(response.headers.get('location')).toBe(`/v2/sites/${domain}/deployments/${result.deploymentId}`);
    expect(await liveFiles(domain)).toEqual(files);
    const listed = await (await authorized(`/v2/sites/${domain}/deployments/${result.deploymentId}`)).json<Deployment>();
    expect(listed).toMatchObject({ state: 'ready', live: true, source: 'incremental', fileCount: 2, totalBytes: 7 });
    expect([...(await storedObjects(domain)).keys()].filter((key) => key.includes('manifest'))).toEqual([]);
  });

  it('deploys an unchanged folder with one JSON request, and keeps a preview out of the live site', async () => {
    const domain = 'one-request-unchanged.example';
    await deploy(domain, { 'index.html': 'v1' });
    const unchanged = await begin(domain, await manifestOf({ 'index.html': 'v1' }), undefined, 'live');
    expect(unchanged.status).toBe(200);
    expect(await unchanged.json()).toMatchObject({ type: 'site-deploy', domain });
    const preview = await deployInOne(domain, { 'index.html': 'v2' }, ['v2'], 'preview');
    expect(preview.status).toBe(201);
    expect(await preview.json()).toMatchObject({ state: 'ready', live: false });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'v1' });
  });

  it('leaves the deployment uploading, with the blobs it brought, when blobs are still missing', async () => {
    const domain = 'one-request-short.example';
    await deploy(domain, { 'index.html': 'before' });
    const files = { 'index.html': 'after', 'more.html': 'more' };
    const response = await deployInOne(domain, files, ['after'], 'live');
    expect(response.status).toBe(201);
    const pending = await response.json<Deployment>();
    expect(pending).toMatchObject({ state: 'uploading', missing: [await sha256Hex('more')] });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before' });
    expect((await sendBlobs(domain, pending.id, await blobForm(['more']))).status).toBe(200);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('answers 415 naming both forms for a manifest in neither JSON nor multipart', async () => {
    const response = await authorized('/v2/sites/incremental-type.example/deployments', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(response.status).toBe(415);
    expect((await problemOf(response)).detail).toBe(
      'Send this as application/json or multipart/form-data (the manifest part, then blob parts), not text/plain.',
    );
  });

  it('discards the bytes of a one-request deploy that the coordinator refuses', async () => {
    // The Worker reads no base of a patch committed at once: the coordinator refuses one it does not keep.
    const domain = 'one-request-refused.example';
    const form = await blobForm(['never']);
    const body = new FormData();
    body.append('manifest', JSON.stringify({ base: 'aaaaaaaaaaaaaaaaaaaa', files: await manifestOf({ 'index.html': 'never' }), finalize: 'live' }));
    for (const [name, value] of form) body.append(name, value);
    const response = await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
    expect(response.status).toBe(409);
    expect(await storedObjects(domain)).toEqual(new Map());
  });

  it('refuses a one-request deploy that is malformed with 400, storing nothing and keeping the live site', async () => {
    const domain = 'one-request-bad.example';
    await deploy(domain, { 'index.html': 'live' });
    const before = await storedObjects(domain);
    const blobFirst = await blobForm(['x']);
    const refusals = [
      await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body: blobFirst }),
      await deployInOne(domain, { 'index.html': 'v2' }, ['v2', 'stranger'], 'live'),
      await begin(domain, await manifestOf({ 'index.html': 'live' }), undefined, 'now' as 'live'),
    ];
    const manifestOnlyText = new FormData();
    manifestOnlyText.append('manifest', new Blob(['{"files": ']));
    refusals.push(await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body: manifestOnlyText }));
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await problemOf(refusals[0]!)).detail).toMatch(/"manifest"/);
    expect((await problemOf(refusals[2]!)).detail).toMatch(/"finalize"/);
    expect(await storedObjects(domain)).toEqual(before);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });
});
