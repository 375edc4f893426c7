import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { Deployment, Usage } from '../../src/common/api-types';
import { type TokenOptions, authorized, authorizedWith, deploy } from '../support/client';
import { backdate, storedObjects } from '../support/deployments';
import { blobForm, heldBlobs, manifestOf } from '../support/incremental';
import { liveFiles } from '../support/live-files';
import { coordinatorVars } from '../support/vars';
import { fuzzParameters, fuzzTimeout } from '../fuzz/settings';
import { noise } from './support';
import { alarmAfter } from '../support/alarms';

async function bytesUsed(user: TokenOptions): Promise<number> {
  return (await (await authorizedWith({}, '/v2/usage', {}, user)).json<Usage>()).bytes.used;
}

/** The bytes R2 holds for `domain`, but incremental manifests (which are not counted). */
async function bytesInR2(domain: string): Promise<number> {
  let sum = 0;
  for (const [key, size] of await storedObjects(domain)) if (!key.endsWith('.manifest.json')) sum += size;
  return sum;
}

/** The bytes of `domain`'s packs in R2. */
async function packBytes(domain: string): Promise<number> {
  return [...(await storedObjects(domain))].filter(([key]) => key.includes('/packs/')).reduce((sum, [, size]) => sum + size, 0);
}

describe('blobs sent several times at once', () => {
  it('are stored once and counted once: a manifest of one 1 MB file, and 6 requests that send it at once', async () => {
    const user = { user: 'github|parallel-blobs' };
    const domain = 'parallel-blobs.example';
    const blob = noise(1024 * 1024, 11);
    const files = { 'big.bin': blob };
    const pending = await (await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf(files) }) }, user)).json<Deployment>();
    const sent = await Promise.all(Array.from({ length: 6 }, async () => authorized(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm([blob]) }, user)));
    expect(sent.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}/finalize`, { method: 'POST' }, user)).status).toBe(200);

    expect(await liveFiles(domain)).toEqual(files);
    expect(await packBytes(domain)).toBe(blob.length);
    expect(await bytesUsed(user)).toBe(await bytesInR2(domain));
  });

  let run = 0;
  const interleaving = fc
    .record({ blobs: fc.integer({ min: 1, max: 3 }), requests: fc.integer({ min: 2, max: 4 }) })
    .chain(({ blobs, requests }) =>
      fc.record({
        blobs: fc.constant(blobs),
        /** The blobs each request sends (indexes), all of them alike or not. */
        sends: fc.oneof(
          fc.subarray([...Array(blobs).keys()], { minLength: 1 }).map((one) => Array.from({ length: requests }, () => one)),
          fc.array(fc.subarray([...Array(blobs).keys()], { minLength: 1 }), { minLength: requests, maxLength: requests }),
        ),
        /** The order the requests' bodies are released in, and after which of them the next waits for its answer. */
        order: fc.shuffledSubarray([...Array(requests).keys()], { minLength: requests, maxLength: requests }),
        waits: fc.array(fc.boolean(), { minLength: requests, maxLength: requests }),
      }),
    );

  it('are stored once and counted once whatever the interleaving, whether the requests send the same blobs or not', { timeout: fuzzTimeout(6, 3000) }, async () => {
    await fc.assert(
      fc.asyncProperty(interleaving, async ({ blobs, sends, order, waits }) => {
        run++;
        const user = { user: `github|interleaving-${run}` };
        const domain = `interleaving-${run}.example`;
        const contents = Array.from({ length: blobs }, (_, index) => noise(4096 + index * 512, 100 * run + index));
        const sent = [...new Set(sends.flat())];
        const files = Object.fromEntries(sent.map((index) => [`f${index}.txt`, contents[index]!]));
        const begun = await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf(files) }) }, user);
        const { id } = await begun.json<Deployment>();

        const uploads = await Promise.all(sends.map((indexes) => heldBlobs(domain, id, indexes.map((index) => contents[index]!), user)));
        // Every request has asked what the site stores before any sends its blobs.
        await expect.poll(() => uploads.every((upload) => upload.pulled())).toBe(true);
        for (const [step, request] of order.entries()) {
          uploads[request]!.release();
          if (waits[step]) await uploads[request]!.answer;
        }
        expect((await Promise.all(uploads.map(async (upload) => (await upload.answer).status))).every((status) => status === 200)).toBe(true);
        expect((await authorized(`/v2/sites/${domain}/deployments/${id}/finalize`, { method: 'POST' }, user)).status).toBe(200);

        expect(await liveFiles(domain)).toEqual(files);
        expect(await packBytes(domain)).toBe(sent.reduce((sum, index) => sum + contents[index]!.length, 0));
        expect(await bytesUsed(user)).toBe(await bytesInR2(domain));
      }),
      fuzzParameters(6, 34),
    );
  });
});


describe('an upload another user left on a domain claimed since', () => {
  const second = { user: 'github|stranded-second' };

  /** Begins an incremental deploy of `blob` on `domain` as `first`, and uploads it. */
  async function leaveUpload(first: TokenOptions, domain: string, blob: string): Promise<Deployment> {
    const json = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf({ 'a.bin': blob }) }) };
    const pending = await (await authorized(`/v2/sites/${domain}/deployments`, json, first)).json<Deployment>();
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm([blob]) }, first)).status).toBe(200);
    return pending;
  }

  it('makes no room for the claimant when it is collected: its bytes were counted against the other user', async () => {
    const domain = 'stranded-room.example';
    const pending = await leaveUpload({ user: 'github|stranded-room' }, domain, noise(200 * 1024, 12));
    // Past its deadline: the claimant's commit collects it.
    await backdate(domain, pending.id, 86_400_001);
    // The second user may store 100 KiB: a deploy of 150 KiB does not fit, whatever the first user's 200 KiB freed.
    await coordinatorVars(domain, { MAX_USER_BYTES: String(100 * 1024) });
    const over = await deploy(domain, { 'index.html': noise(150 * 1024, 13) }, undefined, second);
    expect(over.status).toBe(403);
    expect(await bytesUsed(second)).toBe(0);
  });

  it('stops counting against the user who began it once the domain is claimed', async () => {
    const domain = 'stranded-upload.example';
    const first = { user: 'github|stranded-first' };
    const blob = noise(200 * 1024, 14);
    const pending = await leaveUpload(first, domain, blob);
    expect(await bytesUsed(first)).toBeGreaterThanOrEqual(blob.length);

    expect((await deploy(domain, { 'index.html': 'second' }, undefined, second)).status).toBe(200);
    // The first user's upload can no longer be finalized: it counts no more, and its bytes go after the grace.
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}/finalize`, { method: 'POST' }, first)).status).toBe(403);
    expect(await bytesUsed(first)).toBe(0);
    await alarmAfter(domain, 2000);
    expect(await bytesUsed(second)).toBe(await bytesInR2(domain));
  });

  it("charges the claimant for a blob of it that the claim's deploy reuses, and frees it from the user who uploaded it", async () => {
    const domain = 'stranded-reused.example';
    const first = { user: 'github|stranded-reuser' };
    const claimant = { user: 'github|stranded-claimant' };
    const blob = noise(64 * 1024, 15);
    await leaveUpload(first, domain, blob);
    expect(await bytesUsed(first)).toBeGreaterThanOrEqual(blob.length);

    // The claimant's deploy has the same file: it stores no new copy of it, and names the stranded upload's pack.
    expect((await deploy(domain, { 'index.html': 'claimed', 'a.bin': blob }, undefined, claimant)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'claimed', 'a.bin': blob });
    expect(await bytesUsed(first)).toBe(0);
    await alarmAfter(domain, 2000);
    expect(await bytesUsed(claimant)).toBe(await bytesInR2(domain));
  });
});

describe('DELETE /v2/sites/<domain>/deployments/<id>', () => {
  it('cancels an upload under way for the user who began it: its bytes go and stop counting', async () => {
    const user = { user: 'github|cancel-upload' };
    const domain = 'cancel-upload.example';
    await deploy(domain, { 'index.html': 'live' }, undefined, user);
    const live = await bytesUsed(user);
    const blob = noise(64 * 1024, 14);
    const pending = await (await authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf({ 'index.html': 'live', 'a.bin': blob }) }) }, user)).json<Deployment>();
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm([blob]) }, user)).status).toBe(200);
    expect(await bytesUsed(user)).toBeGreaterThan(live);

    // Another user cannot; nor can a ready deployment be.
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}`, { method: 'DELETE' }, { user: 'github|cancel-other' })).status).toBe(404);
    const site = await (await authorized(`/v2/sites/${domain}/deployments`, {}, user)).json<{ deployments: Deployment[] }>();
    expect((await authorized(`/v2/sites/${domain}/deployments/${site.deployments[0]!.id}`, { method: 'DELETE' }, user)).status).toBe(409);

    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}`, { method: 'DELETE' }, user)).status).toBe(204);
    expect(await bytesUsed(user)).toBe(live);
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}`, {}, user)).status).toBe(404);
    expect((await authorized(`/v2/sites/${domain}/deployments/${pending.id}/finalize`, { method: 'POST' }, user)).status).toBe(404);
    // Its objects go after the grace for reads in flight (1 s in tests).
    await alarmAfter(domain, 2000);
    expect(await bytesInR2(domain)).toBe(live);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });
});
