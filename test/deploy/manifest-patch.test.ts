import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeployResult } from '../../src/common/api-types';
import { Problem } from '../../src/http/problem';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { authorized, call, deploy, problemOf } from '../support/client';
import { coordinatorOf, keepDeployments, sha256Hex, storedObjects } from '../support/deployments';
import { blobForm, finalize, manifestOf, sendBlobs } from '../support/incremental';
import { liveFiles } from '../support/live-files';
import { unlabelled } from '../../src/content/label-checks';

type Patch = Record<string, string | null>;

/** `POST .../deployments` with a patch of `base`'s files (path → SHA-256 hex, or null), in JSON or, with `blobs`, multipart. */
async function patch(domain: string, base: string, files: Patch, options: { blobs?: string[]; finalize?: 'live' | 'preview'; configuration?: unknown } = {}) {
  const manifest = JSON.stringify({ base, files, ...(options.finalize ? { finalize: options.finalize } : {}), ...(options.configuration ? { configuration: options.configuration } : {}) });
  if (!options.blobs) return authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: manifest });
  const body = new FormData();
  body.append('manifest', new Blob([manifest], { type: 'application/json' }));
  for (const [name, value] of await blobForm(options.blobs)) body.append(name, value);
  return authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
}

async function deployedId(domain: string, files: Record<string, string>): Promise<string> {
  const response = await deploy(domain, files);
  expect(response.status).toBe(200);
  return (await response.json<DeployResult>()).deploymentId;
}

/** Each live file's `modified`, as the files API lists it. */
async function modifiedTimes(domain: string): Promise<Record<string, string>> {
  const listed = await (await authorized(`/v2/sites/${domain}/files/?recursive=1`)).json<{ path: string; modified: string }[]>();
  return Object.fromEntries(listed.map((entry) => [entry.path.replace(/^\//, ''), entry.modified]));
}

describe('incremental deploys against a base deployment', () => {
  it('changes, adds and removes only the paths the patch names, in one request, and keeps the times of the files left alone', async () => {
    const domain = 'patch.example';
    const base = await deployedId(domain, { 'index.html': 'home', 'css/site.css': 'body{}', 'old.html': 'old' });
    const before = await modifiedTimes(domain);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const files = await manifestOf({ 'index.html': 'home v2', 'new/page.html': 'new' });
    const response = await patch(domain, base, { ...files, 'old.html': null }, { blobs: ['home v2', 'new'], finalize: 'live' });
    expect(response.status).toBe(200);
    const result = await response.json<DeployResult>();
    expect(result).toMatchObject({ type: 'site-deploy', domain, hasNewFiles: true });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'home v2', 'css/site.css': 'body{}', 'new/page.html': 'new' });
    const after = await modifiedTimes(domain);
    expect(after['css/site.css']).toBe(before['css/site.css']);
    expect(after['index.html']).not.toBe(before['index.html']);
    const listed = await (await authorized(`/v2/sites/${domain}/deployments/${result.deploymentId}`)).json<Deployment>();
    expect(listed).toMatchObject({ state: 'ready', live: true, source: 'incremental', fileCount: 3, totalBytes: 7 + 6 + 3 });
  });

  it('keeps the Content-Type a file was deployed with when the patch leaves its path alone', async () => {
    const domain = 'patch-types.example';
    const form = new FormData();
    form.append('directory', new File(['MIT'], 'LICENSE', { type: 'text/plain' }));
    form.append('directory', new File(['v1'], 'index.html'));
    const first = await authorized(`/v2/sites/${domain}`, { method: 'PUT', body: form });
    expect(first.status).toBe(200);
    const base = (await first.json<DeployResult>()).deploymentId;
    const contentType = async () => (await call(`http://${domain}/LICENSE`)).headers.get('content-type');
    expect(await contentType()).toBe('text/plain; charset=utf-8');
    const response = await patch(domain, base, await manifestOf({ 'index.html': 'v2' }), { blobs: ['v2'], finalize: 'live' });
    expect(response.status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ LICENSE: 'MIT', 'index.html': 'v2' });
    // A whole manifest names no type, and an extension says none: the type declared at upload stays.
    expect(await contentType()).toBe('text/plain; charset=utf-8');
  });

  it('patches any kept deployment, not only the live one, and an empty patch copies it', async () => {
    const domain = 'patch-older.example';
    await keepDeployments(domain, 5);
    const first = await deployedId(domain, { 'index.html': 'first' });
    await deployedId(domain, { 'index.html': 'second', 'extra.html': 'extra' });
    const copy = await patch(domain, first, {}, { finalize: 'live' });
    expect(copy.status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'first' });
    // Bytes another kept deployment stored need no upload either.
    const reused = await patch(domain, first, await manifestOf({ 'extra.html': 'extra' }), { finalize: 'live' });
    expect(reused.status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'first', 'extra.html': 'extra' });
  });

  it('answers what a patch still lacks, and finalizes it once uploaded', async () => {
    const domain = 'patch-resume.example';
    const base = await deployedId(domain, { 'index.html': 'before', 'keep.html': 'keep' });
    const response = await patch(domain, base, await manifestOf({ 'index.html': 'after', 'more.html': 'more' }), { blobs: ['after'], finalize: 'live' });
    expect(response.status).toBe(201);
    const pending = await response.json<Deployment>();
    expect(pending).toMatchObject({ state: 'uploading', missing: [await sha256Hex('more')], fileCount: 3 });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'before', 'keep.html': 'keep' });
    expect((await sendBlobs(domain, pending.id, await blobForm(['more']))).status).toBe(200);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'after', 'keep.html': 'keep', 'more.html': 'more' });
  });

  it('answers 409 base-not-kept for a deployment the site does not keep, storing nothing and keeping the live site', async () => {
    const domain = 'patch-unknown.example';
    // The tests keep one deployment: the first falls out of the window when the second goes live.
    const collected = await deployedId(domain, { 'index.html': 'first' });
    const live = await deployedId(domain, { 'index.html': 'live' });
    const elsewhere = await deployedId('patch-elsewhere.example', { 'index.html': 'other' });
    const before = await storedObjects(domain);
    for (const base of [collected, 'no-such-deployment-id', elsewhere]) {
      const response = await patch(domain, base, await manifestOf({ 'index.html': 'v2' }), { blobs: ['v2'], finalize: 'live' });
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await problemOf(response)).toMatchObject({ type: '/problems/base-not-kept', status: 409 });
    }
    expect(await storedObjects(domain)).toEqual(before);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
    expect((await patch(domain, live, {}, { finalize: 'live' })).status).toBe(200);
  });

  it('patches the deployment the last patch made, and refuses it once collected, leaving nothing stored', async () => {
    const domain = 'patch-chain.example';
    const first = await deployedId(domain, { 'index.html': 'first', 'keep.html': 'keep' });
    const patched = async (base: string, content: string) => patch(domain, base, await manifestOf({ 'index.html': content }), { blobs: [content], finalize: 'live' });
    const second = await patched(first, 'second');
    expect(second.status).toBe(200);
    // The coordinator wrote this base's index itself: it commits the next patch without reading it back.
    const third = await patched((await second.json<DeployResult>()).deploymentId, 'third');
    expect(third.status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'third', 'keep.html': 'keep' });
    // A deploy of the whole folder collects it (the tests keep one deployment).
    await deployedId(domain, { 'index.html': 'whole' });
    const before = await storedObjects(domain);
    const refused = await patched((await third.json<DeployResult>()).deploymentId, 'fourth');
    expect(refused.status).toBe(409);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/base-not-kept' });
    expect(await storedObjects(domain)).toEqual(before);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'whole' });
  });

  it('refuses a base the coordinator no longer keeps when it commits', async () => {
    const domain = 'patch-collected.example';
    await deployedId(domain, { 'index.html': 'live' });
    const outcome = await runInDurableObject(coordinatorOf(domain), (coordinator: SiteCoordinator) =>
      coordinator.deployManifest({
        domain,
        userId: 'github|1',
        claims: true,
        labels: unlabelled('api'),
        deploymentId: 'patched-deployment-id-0001',
        content: { patch: { base: 'collected-deployment-id-01', files: new Map() } },
        preview: false,
      }),
    );
    expect(outcome.ok ? 'committed' : Problem.from(outcome.problem).kind).toBe('base-not-kept');
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });

  it('checks a patch as it checks a manifest: paths, hashes, and files and folders of the merged site', async () => {
    const domain = 'patch-bad.example';
    const base = await deployedId(domain, { 'index.html': 'live', 'docs/a.html': 'a' });
    const before = await storedObjects(domain);
    const hash = await sha256Hex('x');
    const refusals: [Response, number, RegExp][] = [
      [await patch(domain, base, { '../escape.html': hash }), 400, /"\.\."/],
      [await patch(domain, base, { 'index.html': 'not-a-hash' }), 400, /or null/],
      [await patch(domain, base, { 'docs/a.html/b.html': hash }), 400, /both a file and a folder/],
      [await patch(domain, base, { docs: hash }), 400, /both a file and a folder/],
      // Committed at once, the patch is resolved by the coordinator, which refuses it alike and drops the blob sent.
      [await patch(domain, base, { 'docs/a.html/b.html': hash }, { blobs: ['x'], finalize: 'live' }), 400, /both a file and a folder/],
      [await patch(domain, 42 as unknown as string, {}), 400, /"base"/],
      [
        await authorized(`/v2/sites/${domain}/deployments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ files: { 'index.html': null } }),
        }),
        400,
        /lowercase hex/,
      ],
    ];
    for (const [response, status, detail] of refusals) {
      expect(response.status).toBe(status);
      expect((await problemOf(response)).detail).toMatch(detail);
    }
    expect(await storedObjects(domain)).toEqual(before);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live', 'docs/a.html': 'a' });
  });
});
