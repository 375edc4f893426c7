/**
 * `POST /v2/sites/<domain>/reconcile` (docs/operating.md, "Backups and restore"): an operator's
 * alone, and safe to run again, after a failure midway too.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { authorized, deploy } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { coordinatorLedger, d1Totals, sumsByUser } from '../support/ledger';

const owner = { user: 'github|reconcile-owner' };
const operator = { user: 'github|reconcile-operator', scope: 'admin' };

const reconcile = (domain: string, as: { user: string; scope?: string }) => authorized(`/v2/sites/${domain}/reconcile`, { method: 'POST' }, as);

/** D1's totals for `domain` as a restore to an earlier minute may leave them: off from what the site holds. */
async function drift(domain: string): Promise<void> {
  await env.DB.prepare('UPDATE stored_bytes SET bytes = bytes + 999 WHERE domain = ?').bind(domain).run();
  await env.DB.prepare('INSERT INTO stored_bytes (user_id, domain, bytes) VALUES (?, ?, ?)').bind('github|reconcile-gone', domain, -5).run();
}

/** The coordinator of `domain` fails its next D1 batch (nothing of it committed), then works again. */
async function failNextBatch(domain: string): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
    const held = instance as unknown as { env: typeof env };
    const working = held.env;
    const failing = {
      prepare: (query: string) => env.DB.prepare(query),
      batch: async () => {
        held.env = working;
        throw new Error('D1 is unreachable');
      },
    };
    held.env = { ...working, DB: failing as unknown as D1Database };
  });
}

describe('reconciling a site with D1', () => {
  it("is an operator's: its owner's credential is refused", async () => {
    const domain = 'reconcile-refused.example';
    expect((await deploy(domain, { 'index.html': 'mine' }, undefined, owner)).status).toBe(200);
    await drift(domain);
    const before = await d1Totals(domain);
    expect((await reconcile(domain, owner)).status).toBe(403);
    expect(await d1Totals(domain)).toEqual(before);
  });

  it('sets the totals to what the site holds, and changes nothing more when run again or after a failure midway', async () => {
    const domain = 'reconcile-again.example';
    expect((await deploy(domain, { 'index.html': 'held', 'about.html': 'also held' }, undefined, owner)).status).toBe(200);
    const held = sumsByUser(await coordinatorLedger(domain));
    expect(await d1Totals(domain)).toEqual(held);
    await drift(domain);

    await failNextBatch(domain);
    expect((await reconcile(domain, operator)).status).toBe(500);
    const answers = [];
    for (let run = 0; run < 2; run++) {
      const response = await reconcile(domain, operator);
      expect(response.status).toBe(200);
      answers.push(await response.json());
      expect(await d1Totals(domain)).toEqual(held);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]).toEqual({ domain, bytes: Object.fromEntries(held) });
  });
});
