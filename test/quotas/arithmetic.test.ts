import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type StoredObject, addStoredBytes, forgetStoredBytes, moveLegacyObjects, readUsage, release, reserve } from '../../src/storage/usage-ledger';
import { fuzzParameters, fuzzTimeout } from '../fuzz/settings';

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

describe('quota arithmetic', () => {
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
