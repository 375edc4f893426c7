import { createScheduledController, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../src/common/api-types';
import { moveStoredObjectsOutOfD1 } from '../../../src/coordinator/records/blob-moves';
import type { SiteCoordinator } from '../../../src/coordinator/coordinator';
import worker from '../../../src/index';
import { type TokenOptions, authorized, authorizedWith, deploy } from '../../support/client';
import { coordinatorOf, keepDeployments } from '../../support/deployments';
import { type LedgerRow, coordinatorLedger, d1Totals, legacyRows, sumsByUser } from '../../support/ledger';
import { noise } from '../../quotas/support';

/**
 * The quota ledger (issue 32): each object a site stores is recorded by its coordinator, and the
 * global D1 keeps one byte total per (user, domain), however many objects. Rows D1 held per
 * object before (`stored_objects`) move on first use, or in the daily cron, without a stop.
 */

const kib = 1024;

async function usedBytes(user: TokenOptions): Promise<number> {
  return (await (await authorizedWith({}, '/v2/usage', {}, user)).json<Usage>()).bytes.used;
}

const total = (rows: readonly LedgerRow[]) => rows.reduce((sum, row) => sum + row.bytes, 0);

/**
 * As the site was before the ledger moved: its objects' rows in D1's `stored_objects`, written by
 * the statement the code before it ran, no total, nothing in its coordinator, which restarts.
 */
async function asBeforeTheMove(domain: string, rows: readonly LedgerRow[]): Promise<void> {
  const recordObjects = env.DB.prepare(
    `INSERT INTO stored_objects (key, domain, user_id, bytes)
     SELECT value ->> 0, ?1, ?2, value ->> 1 FROM json_each(?3) WHERE true
     ON CONFLICT (key) DO NOTHING`,
  );
  const users = [...new Set(rows.map((row) => row.userId))];
  await env.DB.batch([
    env.DB.prepare('DELETE FROM stored_bytes WHERE domain = ?1 AND user_id IN (SELECT value FROM json_each(?2))').bind(domain, JSON.stringify(users)),
    ...users.map((user) => recordObjects.bind(domain, user, JSON.stringify(rows.filter((row) => row.userId === user).map((row) => [row.key, row.bytes])))),
  ]);
  await runInDurableObject(coordinatorOf(domain), (_, state) => {
    state.storage.sql.exec('DELETE FROM ledger');
    state.storage.kv.delete('objects-moved-from-d1');
  });
  await restart(domain);
}

/** The next call finds a new instance, as after a deploy of new code or a stop. */
async function restart(domain: string): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (_, state) => state.abort('restart')).catch(() => {});
}

/** Any question to the coordinator: it moves its domain's rows first. */
async function firstUse(domain: string): Promise<unknown> {
  return coordinatorOf(domain).knownBlobs(domain, []);
}

/** The coordinator of `domain` stops at its next D1 batch: `before` it runs, or right after it. */
async function stopAtBatch(domain: string, when: 'before' | 'after'): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator, state) => {
    const stopping = {
      prepare: (query: string) => env.DB.prepare(query),
      batch: async (statements: D1PreparedStatement[]) => {
        if (when === 'after') await env.DB.batch(statements);
        state.abort(`stopped ${when} a D1 batch`);
        throw new Error('stopped');
      },
    };
    (instance as unknown as { env: typeof env }).env = { ...env, DB: stopping as unknown as D1Database };
  });
}

/** `domain`'s rows moved: none left in D1, each in its coordinator, and their sums its totals. */
async function expectMoved(domain: string, rows: readonly LedgerRow[]): Promise<void> {
  expect(await legacyRows(domain)).toEqual([]);
  expect(await coordinatorLedger(domain)).toEqual(rows);
  expect(await d1Totals(domain)).toEqual(sumsByUser(rows));
}

/** A site of `user` with several objects (three kept deployments, each a pack and an index); answers its ledger. */
async function siteWithObjects(domain: string, user: TokenOptions): Promise<LedgerRow[]> {
  await keepDeployments(domain, 3);
  for (const [seed, content] of ['one', 'two', 'three'].entries()) {
    expect((await deploy(domain, { 'index.html': content, 'data.bin': noise(4 * kib, seed + 20) }, undefined, user)).status).toBe(200);
  }
  return coordinatorLedger(domain);
}

describe('the quota ledger', () => {
  it('keeps one byte total per user and site in D1, however many objects the site stores; its coordinator records each', async () => {
    const user = { user: 'github|ledger-total' };
    const domain = 'ledger-total.example';
    const rows = await siteWithObjects(domain, user);
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((row) => row.userId))).toEqual(new Set([user.user]));
    expect(await legacyRows(domain)).toEqual([]);
    expect(await d1Totals(domain)).toEqual(new Map([[user.user, total(rows)]]));
    expect(await usedBytes(user)).toBe(total(rows));

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, user)).status).toBe(200);
    expect(await d1Totals(domain)).toEqual(new Map());
    expect(await usedBytes(user)).toBe(0);
  });

  it("stays the sums of its coordinator's records across a stop after a commit's batch, and a batch that never ran", async () => {
    const user = { user: 'github|ledger-stops' };
    const domain = 'ledger-stops.example';
    expect((await deploy(domain, { 'index.html': 'one' }, undefined, user)).status).toBe(200);

    for (const when of ['after', 'before'] as const) {
      const before = await coordinatorLedger(domain);
      await stopAtBatch(domain, when);
      expect((await deploy(domain, { 'index.html': `stopped ${when}` }, undefined, user)).status).toBe(500);
      // The restarted coordinator settles the change that committed, and drops the one that did not.
      expect(await runDurableObjectAlarm(coordinatorOf(domain))).toBe(true);
      const after = await coordinatorLedger(domain);
      if (when === 'before') expect(after).toEqual(before);
      else expect(after.some((row) => before.some((kept) => kept.key === row.key))).toBe(false);
      expect(await d1Totals(domain)).toEqual(sumsByUser(after));
      expect(await usedBytes(user)).toBe(total(after));
    }
  });

  it("moves a site's stored_objects rows into its total on first use, counting them all along, and frees them as its own", async () => {
    const user = { user: 'github|ledger-move' };
    const domain = 'ledger-move.example';
    const rows = await siteWithObjects(domain, user);
    await asBeforeTheMove(domain, rows);
    expect(await legacyRows(domain)).toEqual(rows);
    // Until it moves, the user's bytes are the rows left in D1.
    expect(await usedBytes(user)).toBe(total(rows));

    await firstUse(domain);
    await expectMoved(domain, rows);
    expect(await usedBytes(user)).toBe(total(rows));

    // A deploy that keeps one deployment frees the moved objects of the others: the total follows.
    await keepDeployments(domain, 1);
    expect((await deploy(domain, { 'index.html': 'four' }, undefined, user)).status).toBe(200);
    const kept = await coordinatorLedger(domain);
    expect(kept.some((row) => rows.some((moved) => moved.key === row.key))).toBe(false);
    expect(await d1Totals(domain)).toEqual(sumsByUser(kept));
    expect(await usedBytes(user)).toBe(total(kept));
  });

  it('does a move cut before its D1 batch again whole, and one cut after it without counting twice', async () => {
    for (const when of ['before', 'after'] as const) {
      const user = { user: `github|ledger-cut-${when}` };
      const domain = `ledger-cut-${when}.example`;
      const rows = await siteWithObjects(domain, user);
      await asBeforeTheMove(domain, rows);

      await stopAtBatch(domain, when);
      await expect(firstUse(domain)).rejects.toThrow();
      // Cut before: D1 is as it was. Cut after: the rows moved, though the coordinator did not mark it.
      expect(await legacyRows(domain)).toEqual(when === 'before' ? rows : []);
      expect(await usedBytes(user)).toBe(total(rows));

      await firstUse(domain);
      await expectMoved(domain, rows);
      expect(await usedBytes(user)).toBe(total(rows));
    }
  });

  it('moves the rows of sites not used since in the daily cron, a bounded number of sites a run', async () => {
    const user = { user: 'github|ledger-idle' };
    const domains = ['ledger-idle-a.example', 'ledger-idle-b.example'];
    const before = new Map<string, LedgerRow[]>();
    for (const domain of domains) {
      expect((await deploy(domain, { 'index.html': domain }, undefined, user)).status).toBe(200);
      before.set(domain, await coordinatorLedger(domain));
      await asBeforeTheMove(domain, before.get(domain)!);
    }
    expect(await moveStoredObjectsOutOfD1(env, 1)).toHaveLength(1);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '17 3 * * *' }), env);
    for (const domain of domains) await expectMoved(domain, before.get(domain)!);
  });
});
