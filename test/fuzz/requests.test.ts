/**
 * Hostile request heads: tokens in the authorization field, and request targets (hosts, paths,
 * methods, conditional and range fields) on a baseline site and on the API.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, token } from '../support/client';
import { tokenCaseOf, tokenSpec } from './arbitraries/jwt';
import { host, requestPath } from './arbitraries/request-target';
import { fuzzParameters, fuzzTimeout } from './settings';
import { BaselineSite, answered, expectApiAnswer, sendableHeaderValue } from './support';

describe('fuzzed tokens', () => {
  const runs = 400;

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

/** Request header fields that change how a file is served. */
const conditions = fc.record(
  {
    range: fc.oneof(fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-2', 'bytes=0-', 'bytes=999999-', 'bytes=0-1,3-4', 'bytes=-0', 'bytes=', 'lines=1-2', 'bytes=1e3-'), fc.string({ maxLength: 20 })),
    'if-none-match': fc.oneof(fc.constantFrom('*', '""', 'W/"x"', '"a", "b"'), fc.string({ maxLength: 20 })),
    'if-modified-since': fc.oneof(fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday', ''), fc.string({ maxLength: 20 })),
    'accept-encoding': fc.constantFrom('br', 'gzip;q=0', '*', 'identity;q=0, *;q=0'),
  },
  { requiredKeys: [] },
);

function parsable(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

describe('fuzzed request targets', () => {
  const site = new BaselineSite('serving.fuzz.example');
  const runs = 1000;

  beforeAll(() => site.deploy());

  it('never a 5xx or a hang, on a site or on the API, and the site is still served as it was', { timeout: fuzzTimeout(runs, 100) }, async () => {
    const apiHosts = new Set(env.API_HOSTNAMES.split(','));
    await fc.assert(
      fc.asyncProperty(host(site.domain), requestPath, fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE'), conditions, async (hostname, path, method, headers) => {
        const url = parsable(`http://${hostname}${path}`);
        fc.pre(url !== undefined && Object.values(headers).every(sendableHeaderValue));
        const what = `${method} ${url!.href} ${JSON.stringify(headers)}`;
        const answer = await answered(() => call(url!.href, { method, headers, redirect: 'manual' }), what);
        expect(answer.status, what).toBeLessThan(500);
        if (apiHosts.has(url!.hostname.replace(/\.$/, ''))) expectApiAnswer(answer, what, method);
      }),
      fuzzParameters(runs),
    );
    await site.expectIntact('after the fuzzed requests');
  });
});
