import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { DeployResult } from '../../../src/common/api-types';
import type { SiteCoordinator } from '../../../src/coordinator/coordinator';
import { followUpRetry } from '../../../src/coordinator/sweeps/follow-ups';
import { claimCertificateJob, getCertificate, recordExternalId } from '../../../src/storage/certificates';
import { keepFollowUp } from '../../../src/storage/dead-letters';
import { getSite } from '../../../src/storage/sites-table';
import { authorized, deploy } from '../../support/client';
import { coordinatorOf } from '../../support/deployments';
import { liveFiles, liveKeys } from '../../support/live-files';
import { Subscriber, subscribe } from '../../events/subscriber';
import { alarmAfter } from '../../support/alarms';

/**
 * What a change leaves to do after its commit (src/coordinator/follow-ups.ts) is tied to the claim
 * it was made for: retried, replayed by an operator, or left by an alarm that gave up, it never
 * acts on a site claimed since, and never stalls.
 */

const operator = { user: 'github|operator', scope: 'admin' };

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

describe("forgetting an unpublished site's certificate, retried after the domain was claimed again", () => {
  it("removes the old custom hostname and leaves the new owner's certificate alone", async () => {
    const domain = 'forget-retried-reclaimed.example';
    expect((await deploy(domain, { 'index.html': 'first owner' }, undefined, { user: 'github|forget-first' })).status).toBe(200);
    await withCustomHostname(domain, 'hostname-first');
    const sent = await certificateJobs(domain, 1);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, { user: 'github|forget-first' })).status).toBe(200);
    // The next owner claims the domain and has a certificate before the forgetting is tried again.
    expect((await deploy(domain, { 'index.html': 'next owner' }, undefined, { user: 'github|forget-next' })).status).toBe(200);
    await withCustomHostname(domain, 'hostname-next');

    await alarmAfter(domain, followUpRetry.firstWaitMs + 1000);
    expect(sent).toContainEqual({ domain, removeCustomHostname: 'hostname-first' });
    expect(await getCertificate(env.DB, domain)).toMatchObject({ externalId: 'hostname-next' });
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

/** Makes `domain`'s coordinator's appends to the event log fail until the answered function is called. */
async function eventLogDown(domain: string): Promise<() => Promise<void>> {
  const down = { idFromName: (name: string) => env.EVENTS.idFromName(name), get: () => ({ append: async () => Promise.reject(new Error('the event log is down')) }) };
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
    const held = instance as unknown as { env: typeof env };
    held.env = { ...held.env, EVENTS: down as unknown as typeof env.EVENTS };
  });
  return () =>
    runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
      const held = instance as unknown as { env: typeof env };
      held.env = { ...held.env, EVENTS: env.EVENTS };
    });
}

describe("a previous claim's events retried after the domain was claimed again", () => {
  it("are logged, and neither replayed nor pushed to the new claim's readers", async () => {
    const domain = 'late-events-reclaimed.example';
    const first = { user: 'github|late-events-first' };
    const next = { user: 'github|late-events-next' };
    const service = await subscribe();
    expect((await deploy(domain, { 'index.html': 'first owner' }, undefined, first)).status).toBe(200);
    await service.until(() => service.of([domain]).some((event) => event.event === 'site-deploy'), 10_000);
    const up = await eventLogDown(domain);
    const member = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'viewer' }) };
    expect((await authorized(`/v2/sites/${domain}/members/${encodeURIComponent('github|late-events-friend')}`, member, first)).status).toBe(201);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, first)).status).toBe(200);
    // The first claim's member-add and site-delete wait for their retry; the next claim begins meanwhile.
    expect((await deploy(domain, { 'index.html': 'next owner' }, undefined, next)).status).toBe(200);
    // The next owner's WebSocket is open when the late events are logged: they are not pushed to it either.
    const pushed = await authorized(`/v2/sites/${domain}/events`, { headers: { upgrade: 'websocket' } }, next);
    expect(pushed.status).toBe(101);
    const socket = pushed.webSocket!;
    const messages: string[] = [];
    const deployed = new Promise<void>((resolve) =>
      socket.addEventListener('message', (message) => {
        messages.push((JSON.parse(message.data as string) as { event: string }).event);
        if (messages.includes('site-deploy')) resolve();
      }),
    );
    socket.accept();
    await up();
    await alarmAfter(domain, followUpRetry.firstWaitMs + 1000);
    await deployed;
    socket.close();
    expect(messages).toEqual(['site-deploy']);
    await service.until(() => service.of([domain]).filter((event) => event.event === 'site-deploy').length === 2, 10_000);
    expect(service.of([domain]).map((event) => event.event)).toEqual(['site-deploy', 'member-add', 'site-delete', 'site-deploy']);
    await service.close();

    const replayed = new Subscriber(await authorized(`/v2/sites/${domain}/events?since=0`, {}, next));
    try {
      await replayed.until(() => replayed.events.some((event) => event.event === 'site-deploy'));
      expect(replayed.events.map((event) => event.event)).toEqual(['site-deploy']);
      expect(replayed.raw).not.toContain('late-events-friend');
    } finally {
      await replayed.close();
    }
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
