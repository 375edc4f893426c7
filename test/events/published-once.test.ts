import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { followUpRetry } from '../../src/coordinator/sweeps/follow-ups';
import { authorized, deploy } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { type Subscriber, subscribe } from './subscriber';
import { alarmAfter } from '../support/alarms';

type Bindings = Partial<typeof env>;

/** Gives the coordinator of `domain` these bindings in place of its own, until `restore`. */
async function withBindings(domain: string, bindings: Bindings): Promise<{ restore: () => Promise<void> }> {
  const swap = (replacement: Bindings) =>
    runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
      (instance as unknown as { env: typeof env }).env = { ...env, ...replacement };
    });
  await swap(bindings);
  return { restore: () => swap({}) };
}

/** A queue that accepts every message and loses it, as the local queue does when its runtime is killed (it keeps messages in memory). */
const losingQueue = { send: async () => undefined, sendBatch: async () => undefined } as unknown as Queue<unknown>;
const downQueue = { send: () => Promise.reject(new Error('the queue is down')) } as unknown as Queue<unknown>;
const unreachableLog = {
  idFromName: (name: string) => env.EVENTS.idFromName(name),
  get: () => ({ append: () => Promise.reject(new Error('the event log is unreachable')) }),
} as unknown as typeof env.EVENTS;

/** Runs the coordinator's alarm once its failed follow-up is due again, rather than waiting out the retry's first wait. */
async function retryFollowUps(domain: string): Promise<void> {
  expect(await alarmAfter(domain, followUpRetry.firstWaitMs)).toBe(true);
}

/** `domain`'s site-deploy events of the deployment `deploymentId`, once a later change's event is in: every earlier one of the domain is then logged. */
async function deployEventsOf(subscriber: Subscriber, domain: string, deploymentId: string): Promise<unknown[]> {
  const markers = () => subscriber.of([domain]).filter((event) => event.event === 'configuration-update').length;
  const before = markers();
  const marker = await authorized(`/v2/sites/${domain}/configuration`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ headers: [{ fields: { 'x-marker': String(before) } }] }),
  });
  expect(marker.status).toBe(200);
  await subscriber.until(() => markers() > before, 10_000);
  return subscriber
    .of([domain])
    .map((event) => JSON.parse(event.data) as { type: string; deploymentId?: string })
    .filter((data) => data.type === 'site-deploy' && data.deploymentId === deploymentId);
}

describe("a change's event", () => {
  it('is in the log when the change answers, though the queue then loses its message', async () => {
    const domain = 'published-lost-queue.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const { restore } = await withBindings(domain, { NOTIFICATIONS: losingQueue });
    const response = await deploy(domain, { 'index.html': 'two' });
    expect(response.status).toBe(200);
    const result = await response.text();
    await restore();

    await subscriber.until(() => subscriber.of([domain]).some((event) => event.data === result), 10_000);
    expect(await deployEventsOf(subscriber, domain, JSON.parse(result).deploymentId)).toHaveLength(1);
    await subscriber.close();
  });

  it('is logged once when its follow-up is retried after the queue failed', async () => {
    const domain = 'published-queue-down.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const { restore } = await withBindings(domain, { NOTIFICATIONS: downQueue });
    // A queue that is down fails no deploy that happened; its follow-up is left for the alarm.
    const response = await deploy(domain, { 'index.html': 'two' });
    expect(response.status).toBe(200);
    const { deploymentId } = (await response.json()) as { deploymentId: string };
    await restore();
    await retryFollowUps(domain);

    expect(await deployEventsOf(subscriber, domain, deploymentId)).toHaveLength(1);
    await subscriber.close();
  });

  it('is logged once when the log was unreachable: the queue brings it, and the retry adds nothing', async () => {
    const domain = 'published-log-down.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
    const { restore } = await withBindings(domain, { EVENTS: unreachableLog });
    const response = await deploy(domain, { 'index.html': 'two' });
    expect(response.status).toBe(200);
    const result = await response.text();
    // The queue's consumer logs it under its change's id.
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.data === result), 10_000);
    await restore();
    await retryFollowUps(domain);

    expect(await deployEventsOf(subscriber, domain, JSON.parse(result).deploymentId)).toHaveLength(1);
    await subscriber.close();
  });
});
