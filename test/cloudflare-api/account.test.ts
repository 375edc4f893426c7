import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { CloudflareAccount } from '../../src/cloudflare-api/account';
import { CloudflareApiError, type ZoneAnswer } from '../../src/cloudflare-api/zone-api';
import type { Env } from '../../src/platform/env';
import { ZoneApiStandIn, freePlan } from '../support/zone-api';

/**
 * The account's budget and purge batcher (src/cloudflare-api/account.ts) against a stand-in for
 * Cloudflare's zone API that enforces the documented limits and answers 429s
 * (test/support/zone-api.ts). Each test has its own account object; the limits are scaled down
 * (a window of seconds, a handful of requests) so that a test reaches them, and the stand-in
 * enforces the same ones the settings give the service.
 */
/** Settings (vars) that differ from wrangler.toml's. */
type Vars = Record<string, string>;

async function account(name: string, standIn: ZoneApiStandIn, vars: Vars = {}) {
  const stub = env.CLOUDFLARE_API.get(env.CLOUDFLARE_API.idFromName(name));
  await runInDurableObject(stub, (instance: CloudflareAccount) => {
    instance.send = standIn.fetch;
    (instance as unknown as { env: Env }).env = { ...env, CLOUDFLARE_ZONE_ID: 'zone-test', CLOUDFLARE_API_TOKEN: 'token-test', ...vars } as Env;
  });
  return stub;
}

const urls = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `https://sitehost.cache/live/${prefix}-${index}.example`);

/** Every URL in `wanted` was in a request Cloudflare accepted. */
function purged(standIn: ZoneApiStandIn): Set<string> {
  return new Set(standIn.purges.filter((request) => request.status === 200).flatMap((request) => request.urls!));
}

/** The most requests of `requests` within any `windowMs`. */
function busiestWindow(requests: { at: number }[], windowMs: number): number {
  const times = requests.map((request) => request.at).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('purges through the account', () => {
  it('batches the URLs of concurrent changes, at most 100 a request', async () => {
    // Cloudflare holds its answer to the first request until every ask is stored: they arrive while it is on its way.
    let allAsked!: () => void;
    const asked = new Promise<void>((resolve) => (allAsked = resolve));
    const standIn = new ZoneApiStandIn(freePlan, () => asked);
    const stub = await account('batches', standIn);
    const wanted = urls(250, 'batch');
    expect(new Set(await Promise.all(wanted.map((url) => stub.purge([url], 0))))).toEqual(new Set(['pending']));
    allAsked();
    await expect.poll(() => purged(standIn).size, { timeout: 15_000 }).toBe(250);
    expect(purged(standIn)).toEqual(new Set(wanted));
    expect(Math.max(...standIn.purges.map((request) => request.urls!.length))).toBeLessThanOrEqual(100);
    // One request at a time: the first carries what was stored when it left, the rest share requests of 100.
    expect(standIn.purges.length).toBeLessThanOrEqual(1 + Math.ceil(249 / 100));
    expect(standIn.refused).toEqual([]);
  });

  it('sends the URLs a change waits for before those handed over without waiting', async () => {
    let firstAnswered!: () => void;
    const held = new Promise<void>((resolve) => (firstAnswered = resolve));
    const standIn = new ZoneApiStandIn(freePlan, () => held);
    const stub = await account('urgent-first', standIn);
    // Collected deployments' records, handed over without waiting; the first request holds the first of them.
    await Promise.all(urls(250, 'collected').map((url) => stub.purge([url], 0)));
    const [live] = urls(1, 'live');
    const change = stub.purge([live!], 30_000);
    // Calls on one stub arrive in order: once this one is answered, the change's URL is stored.
    await stub.purge([], 0);
    firstAnswered();
    expect(await change).toBe('accepted');
    expect(standIn.purges[1]!.urls![0]).toBe(live);
  });

  it("keeps purges within the budget's share of the window and the plan's URLs per request, so Cloudflare refuses none", async () => {
    const limits = { requestsPerWindow: 8, windowSeconds: 2, lockoutSeconds: 2, urlsPerRequest: 5, urlsPerSecond: 800 };
    const standIn = new ZoneApiStandIn(limits);
    const stub = await account('bucket', standIn, {
      CLOUDFLARE_API_REQUESTS: '8',
      CLOUDFLARE_API_WINDOW_SECONDS: '2',
      CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES: '2',
      EDGE_PURGE_URLS_PER_REQUEST: '5',
    });
    const wanted = urls(40, 'bucket');
    const states = await Promise.all(wanted.map((url) => stub.purge([url], 30_000)));
    expect(new Set(states)).toEqual(new Set(['accepted']));
    expect(purged(standIn)).toEqual(new Set(wanted));
    expect(standIn.refused).toEqual([]);
    expect(Math.max(...standIn.purges.map((request) => request.urls!.length))).toBeLessThanOrEqual(5);
    // 8 a window, 2 of them kept for certificates (counted in a window 0.1 s short: the stand-in sees each request a little late).
    expect(busiestWindow(standIn.purges, 1900)).toBeLessThanOrEqual(6);
  });

  it("keeps within the plan's URLs per second", async () => {
    const limits = { ...freePlan, urlsPerSecond: 20, urlsPerRequest: 10 };
    const standIn = new ZoneApiStandIn(limits);
    const stub = await account('url-rate', standIn, { EDGE_PURGE_URLS_PER_SECOND: '20', EDGE_PURGE_URLS_PER_REQUEST: '10', CLOUDFLARE_API_REQUESTS: '1200', CLOUDFLARE_API_WINDOW_SECONDS: '1', CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES: '0' });
    const wanted = urls(60, 'url-rate');
    await Promise.all(wanted.map((url) => stub.purge([url], 30_000)));
    expect(purged(standIn)).toEqual(new Set(wanted));
    expect(standIn.refused).toEqual([]);
  });

  it('honours a 429 and its Retry-After: nothing is sent until then, the change hears "pending", and the purge is made after', async () => {
    const standIn = new ZoneApiStandIn(freePlan);
    const stub = await account('retry-after', standIn);
    standIn.lockOut(2);
    const [url] = urls(1, 'locked');
    expect(await stub.purge([url!], 500)).toBe('pending');
    const [refusal] = standIn.refused;
    expect(refusal).toBeDefined();
    await expect.poll(() => purged(standIn).has(url!), { timeout: 15_000 }).toBe(true);
    const sentAfter = standIn.seen.filter((request) => request.at > refusal!.at);
    expect(sentAfter.every((request) => request.at - refusal!.at >= 2000)).toBe(true);
    expect(standIn.refused).toHaveLength(1);
  });

  it('answers "pending" at once while Cloudflare refuses every call for longer than the wait, and sends nothing', async () => {
    const standIn = new ZoneApiStandIn(freePlan);
    const stub = await account('locked-out', standIn);
    standIn.lockOut(300);
    // A call that meets the lockout: the account has heard Retry-After once it answers.
    expect(await stub.call(getHostname)).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 300 });
    expect(await stub.purge(urls(1, 'lockout'), 60_000)).toBe('pending');
    expect(standIn.seen).toHaveLength(1);
  });

  it('sends what a stopped account held once the lockout it stored has passed', async () => {
    const standIn = new ZoneApiStandIn(freePlan);
    const stub = await account('restarted', standIn);
    standIn.lockOut(2);
    expect(await stub.call(getHostname)).toMatchObject({ status: 429 });
    const [refusal] = standIn.refused;
    const [url] = urls(1, 'restart');
    expect(await stub.purge([url!], 0)).toBe('pending');
    await runInDurableObject(stub, (_instance, state) => state.abort('stopped by the test')).catch(() => undefined);
    // A new instance: it knows the URL and the lockout only from storage.
    const restarted = await account('restarted', standIn);
    await expect.poll(() => runDurableObjectAlarm(restarted).then(() => purged(standIn).has(url!)), { timeout: 15_000, interval: 200 }).toBe(true);
    expect(standIn.seen.filter((request) => request !== refusal).every((request) => request.at - refusal!.at >= 2000)).toBe(true);
    expect(standIn.refused).toEqual([refusal]);
  });
});

/** A certificate call (Cloudflare for SaaS) that needs no hostname to exist: the stand-in answers 404. */
const getHostname = { method: 'GET', path: '/custom_hostnames/none' } as const;

describe('certificate calls through the same budget', () => {
  const createHostname = { method: 'POST', path: '/custom_hostnames', body: { hostname: 'shop.example', ssl: { method: 'http', type: 'dv' } } } as const;

  it('keeps their reserve while purges wait, and are refused with retryAfterSeconds once the window is spent', async () => {
    const standIn = new ZoneApiStandIn({ ...freePlan, requestsPerWindow: 3, windowSeconds: 60 });
    const stub = await account('certificates', standIn, { CLOUDFLARE_API_REQUESTS: '3', CLOUDFLARE_API_WINDOW_SECONDS: '60', CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES: '2' });
    const [first, second] = urls(2, 'share');
    expect(await stub.purge([first!], 30_000)).toBe('accepted');
    // The purges' share (one a minute) is spent: the next waits, and the certificates' two go.
    expect(await stub.purge([second!], 200)).toBe('pending');
    const created = (await stub.call(createHostname)) as ZoneAnswer<{ id: string }>;
    expect(created.ok).toBe(true);
    const id = created.ok ? created.result.id : '';
    expect((await stub.call({ method: 'GET', path: `/custom_hostnames/${id}` })).ok).toBe(true);
    const refused = await stub.call({ method: 'GET', path: `/custom_hostnames/${id}` });
    expect(refused).toMatchObject({ ok: false, status: 429, retryAfterSeconds: expect.any(Number) });
    expect(standIn.seen).toHaveLength(3);
    expect(standIn.refused).toEqual([]);
  });

  it('are refused while Cloudflare locks the token out, without calling it', async () => {
    const standIn = new ZoneApiStandIn(freePlan);
    const stub = await account('certificates-locked', standIn);
    standIn.lockOut(300);
    expect(await stub.call(createHostname)).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 300 });
    const answer = await stub.call(createHostname);
    expect(answer).toMatchObject({ ok: false, status: 429 });
    expect(answer.ok ? 0 : answer.retryAfterSeconds).toBeGreaterThan(200);
    expect(standIn.seen).toHaveLength(1);
  });

  it('reach the issuer as a CloudflareApiError it retries after', async () => {
    const { budgetedZoneApi } = await import('../../src/cloudflare-api/account-client');
    const { CloudflareIssuer } = await import('../../src/certificates/cloudflare-for-saas/cloudflare-issuer');
    const standIn = new ZoneApiStandIn(freePlan);
    await account('account', standIn);
    const issuer = new CloudflareIssuer(budgetedZoneApi(env));
    const issue = () => issuer.issue({ domain: 'budgeted.example', externalId: null, rememberExternalId: async () => {} });
    expect(await issue()).toMatchObject({ kind: 'waiting' });
    expect(standIn.seen.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /custom_hostnames']);
    standIn.lockOut(300);
    await expect(issue()).rejects.toBeInstanceOf(CloudflareApiError);
    await expect(issue()).rejects.toMatchObject({ status: 429, retryAfterSeconds: expect.any(Number) });
    // The second attempt was refused by the budget, without a call.
    expect(standIn.seen).toHaveLength(2);
  });
});
