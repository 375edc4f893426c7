import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { claimOf } from '../../src/coordinator/sweeps/claims';
import { followUpRetry } from '../../src/coordinator/sweeps/follow-ups';
import { readFileIndex } from '../../src/storage/file-index';
import { getSite } from '../../src/storage/sites-table';
import { call, deploy, token } from '../support/client';
import { liveFiles, liveKeys, storedKeys } from '../support/live-files';

async function livePaths(domain: string): Promise<string[]> {
  const site = await getSite(env.DB, domain);
  const index = await readFileIndex(env.FILES, site!.deployment!.indexKey);
  return index.files.map((file) => file.path);
}



describe('atomic deploys', () => {
  it('two concurrent deploys both succeed and the site is exactly one of them', async () => {
    const domain = 'race.example';
    await deploy(domain, { 'index.html': 'v0' });
    const first: Record<string, string> = {};
    const second: Record<string, string> = {};
    for (let i = 0; i < 200; i++) {
      first[`first/page-${i}.html`] = `first ${i}`;
      second[`second/item-${i}.html`] = `second ${i}`;
    }
    const responses = await Promise.all([deploy(domain, first), deploy(domain, second)]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    const paths = await livePaths(domain);
    const firstPaths = Object.keys(first).map((path) => path.slice('first/'.length)).sort();
    const secondPaths = Object.keys(second).map((path) => path.slice('second/'.length)).sort();
    expect([firstPaths, secondPaths]).toContainEqual(paths);
  });

  it('two users racing to claim a new domain: exactly one wins, the other gets 403', async () => {
    const domain = 'claim.example';
    const [a, b] = await Promise.all([
      deploy(domain, { 'index.html': 'a' }, undefined, { user: 'github|100' }),
      deploy(domain, { 'index.html': 'b' }, undefined, { user: 'github|200' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    const winner = a.status === 200 ? 'github|100' : 'github|200';
    expect((await getSite(env.DB, domain))!.userId).toBe(winner);
    // The loser's upload left nothing behind.
    expect(await storedKeys(domain)).toEqual(await liveKeys(domain));
  });

  it('a client that disconnects mid-upload leaves the previous deployment served and no objects behind', async () => {
    const domain = 'abort.example';
    await deploy(domain, { 'index.html': 'previous' });
    const before = await liveKeys(domain);

    const boundary = 'sitehost-test-boundary';
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) {
          controller.enqueue(
            encoder.encode(
              `--${boundary}\r\ncontent-disposition: form-data; name="directory"; filename="a.bin"\r\n` +
                'content-type: application/octet-stream\r\n\r\n',
            ),
          );
          controller.enqueue(new Uint8Array(3 * 1024 * 1024));
          controller.enqueue(encoder.encode(`\r\n--${boundary}\r\ncontent-disposition: form-data; name="directory"; filename="b.bin"\r\n\r\n`));
        }
        if (sent < 8) {
          controller.enqueue(new Uint8Array(1024 * 1024));
          sent++;
        } else {
          controller.error(new Error('client went away'));
        }
      },
    });
    const response = await call(`/v2/sites/${domain}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await liveKeys(domain)).toEqual(before);
    expect(await storedKeys(domain)).toEqual(before);
    expect(await livePaths(domain)).toEqual(['index.html']);
  });

  it('a deploy whose notification cannot be sent yet succeeds, and the notification follows later', async () => {
    const domain = 'late-failure.example';
    await deploy(domain, { 'index.html': 'one' });
    const stub = env.SITES.get(env.SITES.idFromName(domain));
    const useQueue = (send: (event: unknown) => Promise<void>) =>
      runInDurableObject(stub, (instance: SiteCoordinator) => {
        (instance as unknown as { env: typeof env }).env = { ...env, NOTIFICATIONS: { send } as unknown as Queue<unknown> };
      });
    // The switch is stored, then the notification cannot be sent.
    await useQueue(() => Promise.reject(new Error('the queue is down')));
    const response = await deploy(domain, { 'index.html': 'two' });
    expect(response.status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'two' });
    const stored = await storedKeys(domain);
    for (const key of await liveKeys(domain)) expect(stored).toContain(key);

    // The queue is back: the alarm retries the notification once its wait is over (Date alone is faked: the coordinator runs in this isolate).
    const sent: unknown[] = [];
    await useQueue(async (event) => void sent.push(event));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + followUpRetry.firstWaitMs);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    vi.useRealTimers();
    expect(sent).toEqual([
      { key: expect.any(String), claim: claimOf(await getSite(env.DB, domain)), event: { ...(await response.json<object>()), type: 'site-deploy', domain, isNewDomain: false, hasNewFiles: true, hasNewConfiguration: false } },
    ]);
  });

  it('deletes a replaced deployment that falls out of the kept window (DEPLOYMENTS_KEPT=1 in tests) once its grace period is over', async () => {
    const domain = 'cleanup.example';
    await deploy(domain, { 'index.html': 'one' });
    const old = await liveKeys(domain);
    await deploy(domain, { 'index.html': 'two' });
    const current = await liveKeys(domain);
    // Reads in flight may still need the old objects: they stay for the grace period (1 s in tests).
    expect(await storedKeys(domain)).toEqual([...old, ...current].sort());
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The alarm may have fired already; if not, run it now.
    await runDurableObjectAlarm(env.SITES.get(env.SITES.idFromName(domain)));
    expect(await storedKeys(domain)).toEqual(current);
  });
});
