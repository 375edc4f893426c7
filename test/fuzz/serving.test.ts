import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/client';
import { host, requestPath } from './arbitraries/request-target';
import { fuzzParameters, fuzzTimeout } from './settings';
import { BaselineSite, answered, expectApiAnswer, sendableHeaderValue } from './support';

const site = new BaselineSite('serving.fuzz.example');
const runs = 1000;

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
