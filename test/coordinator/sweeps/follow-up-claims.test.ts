import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeployResult } from '../../../src/common/api-types';
import type { SiteCoordinator } from '../../../src/coordinator/coordinator';
import { followUpRetry } from '../../../src/coordinator/sweeps/follow-ups';
import { claimCertificateJob, getCertificate, recordExternalId } from '../../../src/storage/certificates';
import { keepFollowUp } from '../../../src/storage/dead-letters';
import { getSite } from '../../../src/storage/sites-table';
import { authorized, deploy } from '../../support/client';
import { coordinatorOf } from '../../support/deployments';
import { liveFiles, liveKeys } from '../../support/live-files';
import { subscribe } from '../../events/subscriber';

/**
 * What a change leaves to do after its commit (src/coordinator/follow-ups.ts) is tied to the claim
 * it was made for: retried, replayed by an operator, or left by an alarm that gave up, it never
 * acts on a site claimed since, and never stalls.
 */

const operator = { user: 'github|operator', scope: 'admin' };

afterEach(() => {
  vi.useRealTimers();
});

/** The domain's certificate as Cloudflare for SaaS recorded it: a custom hostname `externalId`. */
async function withCustomHostname(domain: string, externalId: string): Promise<void> {
  await claimCertificateJob(env.DB, domain, `job-${externalId}`, Date.now(), Date.now() + 60_000);
  await recordExternalId(env.DB, domain, `job-${externalId}`, externalId);
}

/** Records the certificate jobs `domain`'s coordinator queues from now on; the first `failing` sends fail. */
async function certificateJobs(domain: string, failing = 0): Promise<unknown[]> {
  const sent: unknown[] = [];
  let failures = failing;
  const queue = {
    send: async (body: unknown) => {
      if (failures-- > 0) throw new Error('the queue is failing');
      sent.push(body);
    },
  };
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
    const held = instance as unknown as { env: typeof env };
    held.env = { ...held.env, CERTIFICATES: queue as unknown as Queue };
  });
  return sent;
}

/** Runs the coordinator's alarm as if `ms` had passed: Date alone is faked, the coordinator runs in this isolate. */
async function alarmAfter(domain: string, ms: number): Promise<void> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
  await runDurableObjectAlarm(coordinatorOf(domain));
  vi.useRealTimers();
}

/** A follow-up of `domain` kept as a dead letter, as a coordinator keeps one that spent its attempts. */
async function deadLetter(domain: string, followUp: Record<string, unknown>): Promise<void> {
  const key = `follow-up/${String(Date.now()).padStart(15, '0')}/${crypto.randomUUID()}`;
  await keepFollowUp(env.DB, key, Date.now(), { ...followUp, site: domain });
}

describe('forgetting an unpublished site\'s certificate', () => {
  it('removes its custom hostname on a retry, though its first attempt deleted the row before the queue failed', async () => {
    const domain = 'forget-retried.example';
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    await withCustomHostname(domain, 'hostname-retried');
    const sent = await certificateJobs(domain, 1);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await getCertificate(env.DB, domain)).toBeNull();
    expect(sent).toEqual([]);

    await alarmAfter(domain, followUpRetry.firstWaitMs + 1000);
    expect(sent).toEqual([{ domain, removeCustomHostname: 'hostname-retried' }]);
  });
});

describe('a dead letter replayed after the domain was claimed again', () => {
  it("leaves the new owner's certificate and custom hostname alone, and announces no deletion after its deploy", async () => {
    const domain = 'replay-reclaimed.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'first owner' }, undefined, { user: 'github|first-owner' })).status).toBe(200);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, { user: 'github|first-owner' })).status).toBe(200);
    // The unpublish's forgetting and announcement spent their attempts: kept as dead letters, written for the first owner's claim.
    await deadLetter(domain, { kind: 'forget-certificate', domain });
    await deadLetter(domain, { kind: 'notify', event: { type: 'site-delete', domain }, changeId: crypto.randomUUID() });

    const claimed = await (await deploy(domain, { 'index.html': 'new owner' }, undefined, { user: 'github|new-owner' })).json<DeployResult>();
    await withCustomHostname(domain, 'hostname-new-owner');
    const sent = await certificateJobs(domain);
    const replayed = await authorized(`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }, operator);
    expect(await replayed.json()).toEqual({ domain, replayed: 2 });

    expect(await getCertificate(env.DB, domain)).toMatchObject({ externalId: 'hostname-new-owner' });
    expect(sent).toEqual([]);
    // A later change's event marks the end of what the replay published.
    const edit = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ headers: [{ fields: { 'x-after': 'replay' } }] }) };
    expect((await authorized(`/v2/sites/${domain}/configuration`, edit, { user: 'github|new-owner' })).status).toBe(200);
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.event === 'configuration-update'), 10_000);
    expect(subscriber.of([domain]).map((event) => event.event)).toEqual(['site-deploy', 'site-delete', 'site-deploy', 'configuration-update']);
    expect(subscriber.of([domain])[2]!.data).toContain(claimed.deploymentId);
    await subscriber.close();
  });
});

describe('a dead deletion replayed after a restore', () => {
  it('deletes none of what the site holds now', async () => {
    const domain = 'replay-deletion-held.example';
    expect((await deploy(domain, { 'index.html': 'live' })).status).toBe(200);
    // A deletion of objects the live deployment holds again: D1, restored to an earlier minute, names them.
    await deadLetter(domain, { kind: 'delete-objects', objects: await liveKeys(domain) });
    const replayed = await authorized(`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }, operator);
    expect(await replayed.json()).toEqual({ domain, replayed: 1 });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
  });
});

/** The coordinator of `domain` stops right after its next D1 batch committed, before it settles what follows. */
async function stopAfterBatch(domain: string): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator, state) => {
    const stopping = {
      prepare: (query: string) => env.DB.prepare(query),
      batch: async (statements: D1PreparedStatement[]) => {
        await env.DB.batch(statements);
        state.abort('stopped after a D1 batch');
        throw new Error('stopped');
      },
    };
    (instance as unknown as { env: typeof env }).env = { ...env, DB: stopping as unknown as D1Database };
  });
}

describe('a coordinator whose alarm gave up', () => {
  it('answers reads with the change it committed, and runs what follows it, with no change to come', async () => {
    const domain = 'alarm-gave-up.example';
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const subscriber = await subscribe();
    await stopAfterBatch(domain);
    const edit = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ headers: [{ fields: { 'x-version': 'two' } }] }) };
    expect((await authorized(`/v2/sites/${domain}/configuration`, edit)).status).toBe(500);
    // D1 was down for every retry of its alarm: none is set any more.
    await runInDurableObject(coordinatorOf(domain), (_, state) => state.storage.deleteAlarm());
    const live = (await getSite(env.DB, domain))!.liveDeploymentId!;

    const listed = await (await authorized(`/v2/sites/${domain}/deployments`)).json<{ deployments: { id: string }[] }>();
    expect(listed.deployments[0]!.id).toBe(live);
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.event === 'configuration-update' && event.data.includes(live)), 10_000);
    await subscriber.close();
  });

  it('runs what follows a change it recovered when it is next asked to sweep', async () => {
    const domain = 'alarm-gave-up-sweep.example';
    const subscriber = await subscribe();
    await stopAfterBatch(domain);
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(500);
    // The failed deploy's clean-up recovered the change; the alarm that was to announce it gave up.
    await runInDurableObject(coordinatorOf(domain), (_, state) => state.storage.deleteAlarm());
    const live = (await getSite(env.DB, domain))!.liveDeploymentId!;
    await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => instance.sweepOrphans(domain, []));
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.event === 'site-deploy' && event.data.includes(live)), 10_000);
    await subscriber.close();
  });
});
