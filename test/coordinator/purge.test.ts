import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { CloudflareAccount } from '../../src/cloudflare-api/account';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import type { Env } from '../../src/platform/env';
import { authorized, deploy } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { ZoneApiStandIn, freePlan } from '../support/zone-api';

/**
 * A change with `EDGE_PURGE=cloudflare`: its purge goes through the account
 * (src/cloudflare-api/account.ts) to a stand-in for Cloudflare's zone API (test/support/zone-api.ts),
 * and the change answers 200 once Cloudflare accepted it, or with `Sitehost-Purge: pending`.
 */
const cloudflarePurge = { EDGE_PURGE: 'cloudflare', CLOUDFLARE_ZONE_ID: 'zone-test', CLOUDFLARE_API_TOKEN: 'token-test', EDGE_PURGE_WAIT_MS: '10000' };

/**
 * The service's account object, one per test (`account-<domain>`): the runtime is shared with
 * other files (vitest.config.ts), so the one named `account` may hold a budget spent before.
 */
function accountOf(domain: string): Env['CLOUDFLARE_API'] {
  const id = env.CLOUDFLARE_API.idFromName(`account-${domain}`);
  return { idFromName: () => id, get: () => env.CLOUDFLARE_API.get(id) } as unknown as Env['CLOUDFLARE_API'];
}

async function purgingThroughCloudflare(domain: string, standIn: ZoneApiStandIn, bindings: Partial<Env> = {}): Promise<void> {
  expect((await deploy(domain, { 'index.html': 'one' })).status).toBe(200);
  const account = accountOf(domain);
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
    (instance as unknown as { env: Env }).env = { ...env, ...cloudflarePurge, CLOUDFLARE_API: account, ...bindings };
  });
  await runInDurableObject(account.get(account.idFromName('account')), (instance: CloudflareAccount) => {
    instance.send = standIn.fetch;
    (instance as unknown as { env: Env }).env = { ...env, ...cloudflarePurge };
  });
}

function editConfiguration(domain: string, value: string): Promise<Response> {
  return authorized(`/v2/sites/${domain}/configuration`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ headers: [{ fields: { 'x-version': value } }] }),
  });
}

const liveUrl = (domain: string) => `https://${env.EDGE_CACHE_HOST}/live/${domain}`;
const accepted = (standIn: ZoneApiStandIn) => standIn.purges.filter((request) => request.status === 200).flatMap((request) => request.urls!);

describe('a change purging through Cloudflare', () => {
  it('answers 200 once Cloudflare accepted the purge of its live record', async () => {
    const domain = 'purge-accepted.example';
    const standIn = new ZoneApiStandIn(freePlan);
    await purgingThroughCloudflare(domain, standIn);
    const response = await editConfiguration(domain, 'two');
    expect(response.status).toBe(200);
    expect(response.headers.get('sitehost-purge')).toBeNull();
    expect(accepted(standIn)).toContain(liveUrl(domain));
  });

  it('answers 200 with Sitehost-Purge: pending while Cloudflare refuses, and the purge is made after its Retry-After', async () => {
    const domain = 'purge-refused.example';
    const standIn = new ZoneApiStandIn(freePlan);
    // Cloudflare refuses for 2 s; the change waits half a second.
    await purgingThroughCloudflare(domain, standIn, { EDGE_PURGE_WAIT_MS: '500' });
    standIn.lockOut(2);
    const response = await editConfiguration(domain, 'two');
    expect(response.status).toBe(200);
    expect(response.headers.get('sitehost-purge')).toBe('pending');
    expect(accepted(standIn)).toEqual([]);
    await expect.poll(() => accepted(standIn), { timeout: 15_000 }).toContain(liveUrl(domain));
  });

  it('keeps a purge it could not hand over, and hands it over from its alarm', async () => {
    const domain = 'purge-unreachable.example';
    const standIn = new ZoneApiStandIn(freePlan);
    const unreachable = {
      idFromName: (name: string) => env.CLOUDFLARE_API.idFromName(name),
      get: () => ({ purge: async () => Promise.reject(new Error('the account is unreachable')) }),
    };
    await purgingThroughCloudflare(domain, standIn, { CLOUDFLARE_API: unreachable as unknown as Env['CLOUDFLARE_API'] });
    const response = await editConfiguration(domain, 'two');
    expect(response.status).toBe(200);
    expect(response.headers.get('sitehost-purge')).toBe('pending');

    await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
      (instance as unknown as { env: Env }).env = { ...env, ...cloudflarePurge, CLOUDFLARE_API: accountOf(domain) };
    });
    expect(await runDurableObjectAlarm(coordinatorOf(domain))).toBe(true);
    expect(accepted(standIn)).toContain(liveUrl(domain));
  });
});
