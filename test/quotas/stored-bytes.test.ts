import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/common/api-types';
import { authorized, authorizedWith, deploy, problemOf } from '../support/client';
import { coordinatorOf, sha256Hex, storedObjects } from '../support/deployments';
import { type StoredObject, addStoredBytes, forgetStoredBytes, moveLegacyObjects, readUsage, release, reserve } from '../../src/storage/usage-ledger';
import { begin, blobForm, finalize, heldBlobs, manifestOf, sendBlobs } from '../support/incremental';
import { liveFiles } from '../support/live-files';
import { coordinatorLedger, d1Totals, legacyRows, sumsByUser } from '../support/ledger';
import { coordinatorVars, servedAs } from '../support/vars';
import { fuzzParameters, fuzzTimeout } from '../fuzz/settings';
import { noise } from './support';

const kib = 1024;

/** The objects `domain` stores now that it did not before, with their sizes. */
async function addedSince(domain: string, before: Map<string, number>): Promise<Map<string, number>> {
  return new Map([...(await storedObjects(domain))].filter(([key]) => !before.has(key)));
}

function bytesOf(objects: Map<string, number>): number {
  return [...objects.values()].reduce((sum, size) => sum + size, 0);
}

/** One request: the manifest part, then a blob part for each of `blobs`. */
async function manifestWithBlobs(domain: string, files: Record<string, string>, blobs: string[], finalize = 'live') {
  const body = new FormData();
  body.append('manifest', new Blob([JSON.stringify({ files: await manifestOf(files), finalize })], { type: 'application/json' }));
  for (const [name, value] of await blobForm(blobs)) body.append(name, value);
  return authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body });
}

/** The bytes `domain`'s coordinator records for its objects, by key. */
async function recorded(domain: string): Promise<Map<string, number>> {
  return new Map((await coordinatorLedger(domain)).map((row) => [row.key, row.bytes]));
}

describe('bytes stored are bytes counted', () => {
  it('stores a blob part sent 30 times in one upload once', async () => {
    const domain = 'repeated-part.example';
    await deploy(domain, { 'index.html': 'live' });
    const blob = noise(64 * kib, 1);
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'live', 'big.txt': blob }))).json<Deployment>();
    const before = await storedObjects(domain);

    const sent = await sendBlobs(domain, pending.id, await blobForm(Array.from({ length: 30 }, () => blob)));
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ missing: [] });
    const added = await addedSince(domain, before);
    expect(added.size).toBe(1);
    expect(bytesOf(added)).toBe(blob.length);

    // Sent again in a later request, it is stored already: nothing more is written.
    expect((await sendBlobs(domain, pending.id, await blobForm([blob, blob]))).status).toBe(200);
    expect(await addedSince(domain, before)).toEqual(added);
    expect((await finalize(domain, pending.id)).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live', 'big.txt': blob });
  });

  it('refuses with 413 naming MAX_TOTAL_BYTES an upload whose repeated parts add up past it, keeping one copy', async () => {
    const domain = 'repeated-past-limit.example';
    await deploy(domain, { 'index.html': 'live' });
    const blob = noise(256 * kib, 2);
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'live', 'big.txt': blob }))).json<Deployment>();
    const before = await storedObjects(domain);
    const vars = { MAX_TOTAL_BYTES: String(4 * 1024 * kib) };

    const sent = await authorizedWith(vars, `/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm(Array.from({ length: 30 }, () => blob)) });
    expect(sent.status).toBe(413);
    expect(await problemOf(sent)).toMatchObject({ limit: 'MAX_TOTAL_BYTES', value: 4 * 1024 * kib });
    // The first part arrived whole and verified: it is kept (asking again resumes), and nothing else.
    expect(bytesOf(await addedSince(domain, before))).toBe(blob.length);
    expect(await servedAs(domain, ['/index.html'])).toEqual([expect.stringMatching(/^200 .* live$/)]);
  });

  it('stores one copy of a part repeated in a one-request deploy, and none of content the site stores', async () => {
    const domain = 'one-request-repeats.example';
    const stored = noise(32 * kib, 3);
    await deploy(domain, { 'index.html': 'live', 'stored.txt': stored });
    const before = await storedObjects(domain);
    const fresh = noise(32 * kib, 4);
    const files = { 'index.html': 'live', 'stored.txt': stored, 'fresh.txt': fresh };

    const response = await manifestWithBlobs(domain, files, [...Array.from({ length: 30 }, () => fresh), stored, stored]);
    expect(response.status).toBe(200);
    // The pack holds the fresh content once; the rest is the new index.
    const added = await addedSince(domain, before);
    const packs = [...added].filter(([key]) => key.includes('/packs/'));
    expect(packs.map(([, size]) => size)).toEqual([fresh.length]);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('stores and counts once a blob two requests sent at once, though two copies would not fit in MAX_TOTAL_BYTES', async () => {
    const domain = 'concurrent-blobs.example';
    await deploy(domain, { 'index.html': 'live' });
    const blob = noise(48 * kib, 5);
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'live', 'big.txt': blob }))).json<Deployment>();
    // The deployment's blobs are 48 KiB: one copy fits, two do not.
    await coordinatorVars(domain, { MAX_TOTAL_BYTES: String(64 * kib) });
    const before = await storedObjects(domain);

    // Each request has asked what the site stores before either sends its blob.
    const uploads = await Promise.all([0, 1].map(() => heldBlobs(domain, pending.id, [blob])));
    await expect.poll(() => uploads.every((upload) => upload.pulled())).toBe(true);
    for (const { release } of uploads) release();
    const answers = uploads.map((upload) => upload.answer);
    const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));

    // The second pack to be recorded brings nothing new: it goes, and counts nothing.
    expect(statuses).toEqual([200, 200]);
    const added = await addedSince(domain, before);
    expect(bytesOf(added)).toBe(blob.length);
    expect((await finalize(domain, pending.id)).status).toBe(200);
  });

  it('records exactly the objects R2 holds for a site, and their sizes, through every kind of change; D1 keeps their sum, no row per object', async () => {
    const domain = 'ledger.example';
    await deploy(domain, { 'index.html': 'one', 'a.txt': noise(10 * kib, 6) });
    await authorized(`/v2/sites/${domain}/files/b.txt`, { method: 'PUT', body: noise(5 * kib, 7) });
    await authorized(`/v2/sites/${domain}/files/a.txt`, { method: 'DELETE' });
    await authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"root":"/"}' });
    const pending = await (await begin(domain, await manifestOf({ 'index.html': 'two', 'c.txt': noise(20 * kib, 8) }))).json<Deployment>();
    await sendBlobs(domain, pending.id, await blobForm(['two', noise(20 * kib, 8)]));
    await finalize(domain, pending.id, { preview: true });
    await manifestWithBlobs(domain, { 'index.html': 'three' }, ['three']);
    await deploy(domain, { 'index.html': 'four' });

    // Collected objects leave R2 after the grace period (1 s in tests); D1 forgot them at the commit.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    const inR2 = new Map([...(await storedObjects(domain))].filter(([key]) => !key.endsWith('.manifest.json')));
    expect(await recorded(domain)).toEqual(inR2);
    expect(await legacyRows(domain)).toEqual([]);
    expect(await d1Totals(domain)).toEqual(sumsByUser(await coordinatorLedger(domain)));

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await recorded(domain)).toEqual(new Map());
    expect(await d1Totals(domain)).toEqual(new Map());
  });
});

describe('MAX_UNFINISHED_DEPLOYMENTS', () => {
  it('refuses one more incremental deploy still uploading with 429 and Retry-After, storing nothing, until one is finalized', async () => {
    const domain = 'unfinished.example';
    await deploy(domain, { 'index.html': 'live' });
    const vars = { MAX_UNFINISHED_DEPLOYMENTS: '2' };
    const beginWith = async (content: string) =>
      authorizedWith(vars, `/v2/sites/${domain}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ files: { 'index.html': await sha256Hex(content) } }),
      });
    const first = await (await beginWith('one')).json<Deployment>();
    expect((await beginWith('two')).status).toBe(201);
    const before = await storedObjects(domain);

    const refused = await beginWith('three');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    // The oldest is collected a day after it began.
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/rate-limited', status: 429, limit: 'MAX_UNFINISHED_DEPLOYMENTS', value: 2 });
    expect(await storedObjects(domain)).toEqual(before);
    expect(await servedAs(domain, ['/'])).toEqual([expect.stringMatching(/^200 .* live$/)]);

    // A deploy that lacks nothing and is finalized at once leaves nothing uploading: not refused.
    const atOnce = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ files: { 'index.html': await sha256Hex('live') }, finalize: 'preview' }),
    });
    expect(atOnce.status).toBe(201);

    await sendBlobs(domain, first.id, await blobForm(['one']));
    expect((await finalize(domain, first.id)).status).toBe(200);
    expect((await beginWith('three')).status).toBe(201);
  });
});

/**
 * The quota arithmetic on the real D1: coordinators of several domains of one user reserve,
 * commit, give up, stop without a word (their reservation expires) and collect, interleaved in
 * any order, as they do when they run at once. Each keeps its objects' sizes itself, as a
 * coordinator does (src/coordinator/records/object-ledger.ts), and its commits add the user's delta to the
 * domain's total. Each domain starts with an object recorded as the code before that ledger did
 * (a row of `stored_objects`), which its coordinator moves into its total before its first change,
 * or the daily cron does. Whatever they do, what the user stores never exceeds MAX_USER_BYTES, nor
 * does it with every live reservation added.
 */
describe('quota arithmetic', () => {
  const limit = 1000;
  const limits = { maxSites: 100, maxBytes: limit, deploysPerHour: 100 };
  const domains = ['a.arithmetic.example', 'b.arithmetic.example', 'c.arithmetic.example'];

  type Step =
    /** The coordinator of `domain` reserves objects of `sizes`, freeing its `frees` oldest recorded objects in the same commit. */
    | { kind: 'reserve'; domain: number; sizes: number[]; frees: number }
    /** It commits what it reserved: its total changed by the objects it records less those it frees, the reservation ended, in one batch. */
    | { kind: 'commit'; domain: number }
    /** Its change failed: it releases the reservation. */
    | { kind: 'release'; domain: number }
    /** It stopped between reserving and committing: the reservation expires, and it never commits. */
    | { kind: 'stop'; domain: number }
    /** Between its changes (under its lock, as every change), a collection forgets its `count` oldest objects. */
    | { kind: 'collect'; domain: number; count: number }
    /** Between its changes, its site is unpublished: its total goes. */
    | { kind: 'unpublish'; domain: number }
    /** The daily cron moves its rows of `stored_objects`, unless its coordinator did. */
    | { kind: 'move'; domain: number };

  const domain = fc.nat({ max: domains.length - 1 });
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('reserve' as const), domain, sizes: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 3 }), frees: fc.nat({ max: 3 }) }),
    fc.record({ kind: fc.constant('commit' as const), domain }),
    fc.record({ kind: fc.constant('release' as const), domain }),
    fc.record({ kind: fc.constant('stop' as const), domain }),
    fc.record({ kind: fc.constant('collect' as const), domain, count: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ kind: fc.constant('unpublish' as const), domain }),
    fc.record({ kind: fc.constant('move' as const), domain }),
  );

  /** What each domain stored before the ledger moved. */
  const legacyBytes = 100;

  interface Pending {
    id: string;
    objects: StoredObject[];
    freeing: StoredObject[];
  }

  const bytesOf = (objects: readonly StoredObject[]) => objects.reduce((total, object) => total + object.bytes, 0);

  const runs = 40;
  let user = 0;

  it('never lets the bytes a user stores, with or without live reservations, exceed MAX_USER_BYTES', { timeout: fuzzTimeout(runs, 1500) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const userId = `github|arithmetic-${user++}`;
        const recorded: StoredObject[][] = domains.map((name) => [{ key: `${userId}/${name}/legacy`, bytes: legacyBytes }]);
        const insert = env.DB.prepare('INSERT INTO stored_objects (key, domain, user_id, bytes) VALUES (?, ?, ?, ?)');
        await env.DB.batch(domains.map((name, at) => insert.bind(recorded[at]![0]!.key, name, userId, legacyBytes)));
        const moved = domains.map(() => false);
        /** A domain's rows move once, before its coordinator's first change. */
        const move = async (at: number) => {
          if (!moved[at]) await env.DB.batch(moveLegacyObjects(env.DB, domains[at]!));
          moved[at] = true;
        };
        /** Statement that changes the total of `name` by `delta`, when it changes. */
        const add = (name: string, delta: number) => (delta === 0 ? [] : [addStoredBytes(env.DB, name, new Map([[userId, delta]]))]);
        const pending: (Pending | undefined)[] = domains.map(() => undefined);
        let next = 0;
        for (const at of steps) {
          const name = domains[at.domain]!;
          const held = pending[at.domain];
          if (at.kind !== 'release' && at.kind !== 'stop') await move(at.domain);
          if (at.kind === 'reserve' && !held) {
            const objects = at.sizes.map((bytes) => ({ key: `${userId}/${name}/${next++}`, bytes }));
            const freeing = recorded[at.domain]!.slice(0, at.frees);
            const id = crypto.randomUUID();
            const claim = { userId, sites: 0, bytes: bytesOf(objects), freeing: bytesOf(freeing) };
            if (await reserve(env.DB, id, claim, limits)) pending[at.domain] = { id, objects, freeing };
          } else if (at.kind === 'commit' && held) {
            await env.DB.batch([...add(name, bytesOf(held.objects) - bytesOf(held.freeing)), release(env.DB, held.id, userId)]);
            recorded[at.domain] = [...recorded[at.domain]!.filter((object) => !held.freeing.includes(object)), ...held.objects];
            pending[at.domain] = undefined;
          } else if (at.kind === 'release' && held) {
            await release(env.DB, held.id, userId).run();
            pending[at.domain] = undefined;
          } else if (at.kind === 'stop' && held) {
            await env.DB.prepare('UPDATE quota_reservations SET expires = 0 WHERE id = ?').bind(held.id).run();
            pending[at.domain] = undefined;
          } else if (at.kind === 'collect' && !held) {
            const statements = add(name, -bytesOf(recorded[at.domain]!.splice(0, at.count)));
            if (statements.length > 0) await env.DB.batch(statements);
          } else if (at.kind === 'unpublish' && !held) {
            await forgetStoredBytes(env.DB, name, [userId]).run();
            recorded[at.domain] = [];
          }
          const usage = await readUsage(env.DB, userId);
          // The totals are the sums of what each coordinator keeps.
          expect(usage.bytes).toBe(bytesOf(recorded.flat()));
          expect(usage.bytes).toBeLessThanOrEqual(limit);
          expect(usage.bytes + usage.reservedBytes).toBeLessThanOrEqual(limit);
        }
      }),
      fuzzParameters(runs),
    );
  });
});