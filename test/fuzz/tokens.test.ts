import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, token } from '../support/client';
import { tokenCaseOf, tokenSpec } from './arbitraries/jwt';
import { fuzzParameters, fuzzTimeout } from './settings';
import { answered, expectApiAnswer, sendableHeaderValue } from './support';

const runs = 400;

describe('fuzzed tokens', () => {
  it('a token the service must not accept gets 401 with WWW-Authenticate; none gets a 5xx', { timeout: fuzzTimeout(runs, 100) }, async () => {
    await fc.assert(
      fc.asyncProperty(tokenSpec, async (spec) => {
        const { authorization, mayBeAccepted } = await tokenCaseOf(spec, env.AUTH_SECRET!);
        fc.pre(sendableHeaderValue(authorization));
        const what = `GET /v2/sites with authorization: ${authorization}`;
        const answer = await answered(() => call('/v2/sites', { headers: { authorization } }), what);
        expectApiAnswer(answer, what);
        if (!mayBeAccepted) expect(answer.status, what).toBe(401);
        expect([200, 401, 403], what).toContain(answer.status);
        if (answer.status === 401) expect(answer.headers.get('www-authenticate'), what).toMatch(/^Bearer realm="sitehost", error="invalid_token"/);
        if (answer.status === 403) expect(answer.headers.get('www-authenticate'), what).toMatch(/^Bearer realm="sitehost", error="insufficient_scope"/);
      }),
      fuzzParameters(runs),
    );
  });

  it('anything after the API token prefix that was never made gets 401, never a 5xx', { timeout: fuzzTimeout(runs, 50) }, async () => {
    const alphanumeric = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.split(''));
    const body = fc.oneof(fc.string({ unit: alphanumeric, minLength: 36, maxLength: 36 }), fc.string({ unit: alphanumeric, maxLength: 80 }), fc.string({ maxLength: 60 }));
    await fc.assert(
      fc.asyncProperty(body, async (rest) => {
        const authorization = `Bearer sitehost_${rest}`;
        fc.pre(sendableHeaderValue(authorization));
        const what = `GET /v2/sites with authorization: ${authorization}`;
        const answer = await answered(() => call('/v2/sites', { headers: { authorization } }), what);
        expectApiAnswer(answer, what);
        expect(answer.status, what).toBe(401);
      }),
      fuzzParameters(runs, 1),
    );
  });

  it('the oracle is not vacuous: a token with every claim right is accepted', async () => {
    const answer = await call('/v2/sites', { headers: { authorization: `Bearer ${await token()}` } });
    expect(answer.status).toBe(200);
  });
});
