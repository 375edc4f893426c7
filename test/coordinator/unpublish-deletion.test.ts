import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { followUpRetry } from '../../src/coordinator/sweeps/follow-ups';
import worker from '../../src/index';
import { getSite } from '../../src/storage/sites-table';
import { authorized, deploy, deployForm, problemOf, token } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { liveFiles, liveKeys, storedKeys } from '../support/live-files';
import { subscribe } from '../events/subscriber';
import { alarmAfter } from '../support/alarms';

/** Makes R2 deletes of `domain`'s coordinator fail until the returned function is called. */
async function failDeletes(domain: string): Promise<() => Promise<void>> {
  const swap = (failing: boolean) =>
    runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
      const held = instance as unknown as { env: typeof env };
      const files = new Proxy(env.FILES, {
        get(target, property) {
          if (failing && property === 'delete') return () => Promise.reject(new Error('R2 is failing'));
          return (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target);
        },
      });
      held.env = { ...held.env, FILES: failing ? files : env.FILES };
    });
  await swap(true);
  return () => swap(false);
}


afterEach(() => {
  vi.useRealTimers();
});

describe('an unpublish deletes only what the unpublished site held', () => {
  it('keeps the files of a site deployed again before the deletion could run', async () => {
    const domain = 'unpublish-redeploy.example';
    expect((await deploy(domain, { 'index.html': 'first site' })).status).toBe(200);
    const first = await liveKeys(domain);
    const restore = await failDeletes(domain);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    await restore();

    // The domain is free: deployed again while the deletion waits to be retried.
    expect((await deploy(domain, { 'index.html': 'second site' })).status).toBe(200);
    await alarmAfter(domain, followUpRetry.longestWaitMs);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'second site' });
    // The first site's objects went all the same; the second's are all there.
    const second = await liveKeys(domain);
    expect(await storedKeys(domain)).toEqual(second);
    expect(second.some((key) => first.includes(key))).toBe(false);
  });

  it('refuses with 409 a deploy whose pack was written before the unpublish and its index after', async () => {
    const domain = 'unpublish-pack-before-index.example';
    expect((await deploy(domain, { 'index.html': 'first site' })).status).toBe(200);
    // The Worker's writes of indexes wait until the unpublish has run.
    let indexReached!: () => void;
    const reached = new Promise<void>((resolve) => (indexReached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const files = new Proxy(env.FILES, {
      get(target, property) {
        const real = (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target);
        if (property !== 'put') return real;
        return async (key: string, ...rest: unknown[]) => {
          if (key.includes('/deployments/')) {
            indexReached();
            await released;
          }
          return real(key, ...rest);
        };
      },
    });
    const request = new Request(`http://localhost/v2/sites/${domain}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token()}` },
      body: deployForm({ 'index.html': 'second site' }),
    });
    const ctx = createExecutionContext();
    const deploying = worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, FILES: files }, ctx);
    await reached;
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    release();
    const response = await deploying;
    await waitOnExecutionContext(ctx);

    expect(response.status).toBe(409);
    expect(await problemOf(response)).toMatchObject({ type: expect.stringMatching(/\/problems\/conflict$/) });
    expect(await getSite(env.DB, domain)).toBeNull();
    expect(await storedKeys(domain)).toEqual([]);
  });
});

/** When the coordinator's alarm is set for. */
async function alarmOf(domain: string): Promise<number | null> {
  return runInDurableObject(coordinatorOf(domain), (_instance: SiteCoordinator, state) => state.storage.getAlarm());
}

async function deadFollowUps(domain: string): Promise<Record<string, unknown>[]> {
  const { results } = await env.DB.prepare(`SELECT body FROM dead_letters WHERE queue = 'site-follow-ups' AND json_extract(body, '$.site') = ?`)
    .bind(domain)
    .all<{ body: string }>();
  return results.map((row) => JSON.parse(row.body));
}

describe('a follow-up that fails', () => {
  it("holds back none of its site's events", async () => {
    const domain = 'failing-deletion-events.example';
    const subscriber = await subscribe();
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    const first = await liveKeys(domain);
    await failDeletes(domain);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    await subscriber.until(() => subscriber.of([domain]).some((event) => event.event === 'site-delete'));
    expect((await deploy(domain, { 'index.html': 'again' })).status).toBe(200);
    await subscriber.until(() => subscriber.of([domain]).filter((event) => event.event === 'site-deploy').length === 2);
    expect(subscriber.of([domain]).map((event) => event.event)).toEqual(['site-deploy', 'site-delete', 'site-deploy']);
    // Announced while the deletion still fails: the first site's objects are there yet.
    expect(await storedKeys(domain)).toEqual(expect.arrayContaining(first));
    await subscriber.close();
  });

  it('is retried after waits that double, kept as a dead letter after its last attempt, and replayed by an operator', async () => {
    const domain = 'failing-deletion-dead.example';
    expect((await deploy(domain, { 'index.html': 'home' })).status).toBe(200);
    const restore = await failDeletes(domain);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    // Each attempt runs when the alarm is due, by a clock that moves only then.
    vi.useFakeTimers({ toFake: ['Date'] });
    const waits: number[] = [];
    for (let attempt = 1; attempt < followUpRetry.maxAttempts; attempt++) {
      const due = (await alarmOf(domain))!;
      waits.push(due - Date.now());
      vi.setSystemTime(due);
      await runDurableObjectAlarm(coordinatorOf(domain));
    }
    vi.useRealTimers();
    expect(waits.slice(1, 5).map((wait) => wait / 1000)).toEqual([20, 40, 80, 160]);
    expect(Math.max(...waits)).toBe(followUpRetry.longestWaitMs);
    expect(await alarmOf(domain)).toBeNull();
    expect(await deadFollowUps(domain)).toEqual([expect.objectContaining({ kind: 'delete-site-objects', domain, site: domain })]);
    expect(await storedKeys(domain)).not.toEqual([]);

    await restore();
    const operator = { user: 'github|operator', scope: 'admin' };
    expect((await authorized(`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }, { scope: 'deploy' })).status).toBe(403);
    const replayed = await authorized(`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }, operator);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toEqual({ domain, replayed: 1 });
    expect(await storedKeys(domain)).toEqual([]);
    expect(await deadFollowUps(domain)).toEqual([]);
  });
});
