/**
 * What checking an API token costs (docs/design.md, "API tokens"): D1 round trips counted through
 * the bindings, and the time of a request, in this runtime. `npm run bench:tokens` runs this file
 * and prints its target lines; the counts are asserted, the times only printed.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { checkedAtLocation } from '../../src/auth/location-checks';
import type { CreatedApiToken } from '../../src/common/api-types';
import worker from '../../src/index';
import { authorized, token } from '../support/client';
import { CallCounter, metered } from '../support/metered';

const requests = 200;

async function make(user: string): Promise<string> {
  const response = await authorized('/v2/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['deploy'] }) }, { user });
  expect(response.status).toBe(201);
  return (await response.json<CreatedApiToken>()).token;
}

/** `requests` requests of `bearer` to GET /v2/whoami under `vars`: the D1 calls checking the bearer made, and the median time of one. */
async function run(bearer: string, vars: Record<string, string> = {}): Promise<{ d1: number; medianMs: number }> {
  const counter = new CallCounter();
  const bound = metered({ ...env, ...vars }, counter);
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const context = createExecutionContext();
    const started = performance.now();
    const response = await worker.fetch(new Request('http://localhost/v2/whoami', { headers: { authorization: `Bearer ${bearer}` } }) as Request<unknown, IncomingRequestCfProperties>, bound, context);
    times.push(performance.now() - started);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    await waitOnExecutionContext(context);
  }
  times.sort((a, b) => a - b);
  // whoami itself reads its user's suspension once a request (it answers the truth at once): not the check's cost.
  const d1 = counter.calls.filter((call) => call.startsWith('D1.')).length - requests;
  return { d1, medianMs: times[Math.floor(times.length / 2)]! };
}

const line = (figure: string, goal: string, met: boolean) => console.log(`${figure} (target ${goal}: ${met ? 'met' : 'MISSED'})`);

describe('the cost of checking a token', () => {
  it('an API token costs one D1 read per location per API_TOKEN_CHECK_SECONDS, not one per request', async () => {
    const jwt = await token({ user: 'github|bench-jwt' });
    const cached = await run(await make('github|bench-cached'));
    const uncached = await run(await make('github|bench-uncached'), { API_TOKEN_CHECK_SECONDS: '0' });
    const signedIn = await run(jwt);
    // The first request reads the token's row and, after its answer, writes lastUsedAt: two calls for all 200.
    expect(cached.d1).toBe(2);
    // Without the location's memory every request reads D1 (lastUsedAt is still written once).
    expect(uncached.d1).toBe(requests + 1);
    // A JWT's sign-out line: one read, then remembered.
    expect(signedIn.d1).toBe(1);
    line(`D1 round trips for ${requests} requests of one API token at one location: ${cached.d1} (${uncached.d1} without the location cache)`, 'at most 2: a read and the lastUsedAt write', cached.d1 <= 2);
    line(`D1 round trips for ${requests} requests of one JWT (its user's sign-out line): ${signedIn.d1}`, 'at most 1', signedIn.d1 <= 1);
    line(
      `median request time: API token ${cached.medianMs.toFixed(2)} ms, JWT ${signedIn.medianMs.toFixed(2)} ms, API token without the cache ${uncached.medianMs.toFixed(2)} ms (local D1: production's is a round trip away)`,
      'API token within 1 ms of a JWT',
      cached.medianMs - signedIn.medianMs <= 1,
    );
  });

  it('trusts a check for API_TOKEN_CHECK_SECONDS from the time D1 answered it, and no longer', async () => {
    let stored = 'before';
    const load = async () => stored;
    const at = (now: number) => ({ env, waitUntil: () => {}, now });
    const key = `test/${crypto.randomUUID()}`;
    const start = 1_000_000;
    expect(await checkedAtLocation(at(start), key, load)).toBe('before');
    stored = 'after';
    const trusted = await checkedAtLocation(at(start + 29_999), key, load);
    const checkedAgain = await checkedAtLocation(at(start + 30_000), key, load);
    line(`revocation delay: a check is trusted ${trusted === 'before' ? 'up to' : 'less than'} 30 s (API_TOKEN_CHECK_SECONDS) after D1 answered it, and ${checkedAgain === 'after' ? 'read again' : 'still trusted'} then`, 'refused everywhere within 60 s', trusted === 'before' && checkedAgain === 'after');
    expect([trusted, checkedAgain]).toEqual(['before', 'after']);
  });
});
