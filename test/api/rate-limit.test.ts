import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newToken, sha256Hex } from '../../src/auth/token-format';
import worker from '../../src/index';
import type { Env } from '../../src/platform/env';
import { settingsOf } from '../../src/platform/settings';
import { deploy, problemOf, token } from '../support/client';
import { CallCounter, metered } from '../support/metered';

/**
 * The API's rate limits through the real Rate Limiting binding (miniflare's): the suite's own
 * bindings allow a million requests a minute, so each test here swaps in TEST_RATE_LIMITER, the
 * same binding with a limit of 3 (vitest.config.ts), with its setting.
 */
const limit = 3;
const userLimited: Partial<Env> = { USER_RATE_LIMITER: env.TEST_RATE_LIMITER, API_REQUESTS_PER_MINUTE: String(limit) };
const addressLimited: Partial<Env> = { ADDRESS_RATE_LIMITER: env.TEST_RATE_LIMITER, ANONYMOUS_REQUESTS_PER_MINUTE: String(limit) };

async function send(overrides: Partial<Env>, url: string, headers: Record<string, string> = {}): Promise<Response> {
  const request = new Request(url.startsWith('http') ? url : `http://localhost${url}`, { headers });
  return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...overrides }, createExecutionContext());
}

/** The statuses of `requests`, sent one after another. */
async function statuses(requests: (() => Promise<Response>)[]): Promise<number[]> {
  const answered: number[] = [];
  for (const request of requests) {
    const response = await request();
    await response.body?.cancel();
    answered.push(response.status);
  }
  return answered;
}

/**
 * Runs `check` with keys of its own (`run`) until one run fell within one counting window:
 * miniflare counts per minute of the wall clock, and a run that crossed a minute's end (with a
 * second to spare for the clocks of two isolates) started a fresh count halfway. A run takes
 * well under a minute, so the second one never crosses.
 */
async function inOneWindow(check: (run: string) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      await check(crypto.randomUUID());
      return;
    } catch (error) {
      const crossed = Math.floor((started - 1000) / 60_000) !== Math.floor((Date.now() + 1000) / 60_000);
      if (!crossed || attempt === 2) throw error;
    }
  }
}

describe('API rate limits', () => {
  it('refuse a user past API_REQUESTS_PER_MINUTE with a 429 problem naming it and Retry-After, whichever token they send', async () => {
    await inOneWindow(async (run) => {
      const user = `github|rate-${run}`;
      const [first, second] = await Promise.all([token({ user }), token({ user, expiresIn: '2h' })]);
      const asUser = (bearer: string) => () => send(userLimited, '/v2/sites', { authorization: `Bearer ${bearer}` });
      // Two tokens of one user share one count: a fresh token buys none.
      expect(await statuses([asUser(first), asUser(second), asUser(first)])).toEqual([200, 200, 200]);
      const refused = await asUser(second)();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(await problemOf(refused)).toMatchObject({
        type: '/problems/rate-limited',
        status: 429,
        limit: 'API_REQUESTS_PER_MINUTE',
        value: limit,
        detail: expect.stringContaining('this user'),
      });
      // Another user has a count of their own.
      expect((await asUser(await token({ user: `${user}-other` }))()).status).toBe(200);
    });
  });

  it('count requests without a valid token per client address: no token, a garbage one and an expired one alike', async () => {
    await inOneWindow(async (run) => {
      const address = `198.51.100.${1 + (Number.parseInt(run.slice(0, 2), 16) % 250)}`;
      const from = (ip: string, headers: Record<string, string> = {}) => () => send(addressLimited, '/v2/sites', { 'cf-connecting-ip': ip, ...headers });
      const expired = await token({ user: `github|expired-${run}`, expiresIn: -60 });
      const answered = await statuses([from(address), from(address, { authorization: 'Bearer not.a.token' }), from(address, { authorization: `Bearer ${expired}` }), from(address)]);
      expect(answered).toEqual([401, 401, 401, 429]);
      const refused = await from(address)();
      expect(await problemOf(refused)).toMatchObject({ status: 429, limit: 'ANONYMOUS_REQUESTS_PER_MINUTE', value: limit });
      expect(refused.headers.get('retry-after')).toBe('60');
      // A valid token from the same address counts against its user instead.
      expect((await from(address, { authorization: `Bearer ${await token({ user: `github|valid-${run}` })}` })()).status).toBe(200);
    });
  });

  it('count a forged API token against its address before it costs a D1 read, and remember it apart from real tokens', async () => {
    await inOneWindow(async (run) => {
      const address = `192.0.2.${1 + (Number.parseInt(run.slice(0, 2), 16) % 250)}`;
      const counter = new CallCounter();
      const bound = metered({ ...env, ...addressLimited }, counter);
      const reads = () => counter.calls.filter((call) => call.startsWith('D1.')).length;
      const contexts: ExecutionContext[] = [];
      // Tokens of the right form and checksum, which no one was ever given: each costs nothing to make.
      const forged = (bearer = newToken()) => async () => {
        const context = createExecutionContext();
        contexts.push(context);
        const request = new Request('http://localhost/v2/sites', { headers: { 'cf-connecting-ip': address, authorization: `Bearer ${bearer}` } });
        return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, bound, context);
      };
      const repeated = newToken();
      expect(await statuses([forged(repeated), forged(repeated), forged()])).toEqual([401, 401, 401]);
      // Looked up once each: the repeated one is remembered as unknown.
      expect(reads()).toBe(2);
      expect(await statuses([forged(), forged(repeated)])).toEqual([429, 429]);
      // Counted first: the address past its limit, the new forgery was never looked up.
      expect(reads()).toBe(2);
      // Remembered in this isolate only: nothing of it is written to the location's shared cache.
      await Promise.all(contexts.map((context) => waitOnExecutionContext(context)));
      const key = await sha256Hex(`token/${await sha256Hex(repeated)}`);
      expect(await caches.default.match(`https://${settingsOf(env).edge.cacheHost}/.sitehost-auth/${key}`)).toBeUndefined();
    });
  });

  it('count an IPv6 client by its /64: the block one host is given', async () => {
    await inOneWindow(async (run) => {
      const prefix = `2001:db8:${run.slice(0, 4)}:${run.slice(4, 8)}`;
      const from = (ip: string) => () => send(addressLimited, '/v2/openapi.json', { 'cf-connecting-ip': ip });
      expect(await statuses([from(`${prefix}::1`), from(`${prefix}:0:0:0:2`), from(`${prefix.toUpperCase()}::ffff`), from(`${prefix}::4`)])).toEqual([200, 200, 200, 429]);
      expect((await from(`2001:db8:${run.slice(9, 13)}::1`)()).status).toBe(200);
    });
  });

  it('leave hosted sites and their previews unlimited, from an address the API refuses', async () => {
    const domain = 'rate-limited-site.example';
    const deployed = await deploy(domain, { 'index.html': '<h1>Still here</h1>' });
    const { deploymentId } = await deployed.json<{ deploymentId: string }>();
    await inOneWindow(async (run) => {
      const address = `203.0.113.${1 + (Number.parseInt(run.slice(0, 2), 16) % 250)}`;
      const headers = { 'cf-connecting-ip': address };
      const api = () => send(addressLimited, '/v2/sites', headers);
      expect(await statuses([api, api, api, api])).toEqual([401, 401, 401, 429]);
      const site = () => send(addressLimited, `http://${domain}/`, headers);
      const preview = () => send(addressLimited, `http://${deploymentId}.preview.localhost/`, headers);
      expect(await statuses([site, site, site, site, site, preview, preview, preview, preview])).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200]);
      expect(await (await site()).text()).toBe('<h1>Still here</h1>');
    });
  });
});
