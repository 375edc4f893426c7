/**
 * Hostile request bodies: deploys (multipart), JSON documents (configuration, metadata, a deploy's
 * configuration part) and one-request incremental deploys, each against a baseline site of its own.
 * One file, one runtime (each costs about 2 CPU-s to start).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, token } from '../support/client';
import { concat } from './arbitraries/bytes';
import { incrementalBody, incrementalCase } from './arbitraries/incremental';
import { jsonBody } from './arbitraries/json-text';
import { multipartCase } from './arbitraries/multipart';
import { fuzzParameters, fuzzTimeout } from './settings';
import { BaselineSite, answered, expectApiAnswer, sendableHeaderValue } from './support';

describe('fuzzed deploy bodies', () => {
  const site = new BaselineSite('multipart.fuzz.example');
  const runs = 60;

  beforeAll(() => site.deploy());

  it('never a 5xx or a hang; a refusal is a problem and leaves the site served as it was', { timeout: fuzzTimeout(runs) }, async () => {
    const bearer = `Bearer ${await token()}`;
    await fc.assert(
      fc.asyncProperty(multipartCase, async ({ contentType, body }) => {
        fc.pre(sendableHeaderValue(contentType));
        const what = `PUT /v2/sites/${site.domain} (${contentType}, ${body.length} bytes)`;
        const answer = await answered(
          () => call(`/v2/sites/${site.domain}`, { method: 'PUT', headers: { 'content-type': contentType, authorization: bearer }, body }),
          what,
        );
        expectApiAnswer(answer, what);
        await site.settle(answer, what);
      }),
      fuzzParameters(runs),
    );
  });
});

const encoder = new TextEncoder();
/** Paths that reach the root, a file, a missing page (fallback) and a folder, under whatever options were accepted. */
const servedPaths = ['/', '/css/a.css', '/old/missing/page', '/css/'];

/** The statuses a host configuration's `fallback` answers misses with pages of its own (`{"500": "/oops.html"}`). */
function fallbackStatuses({ fallback }: { fallback?: unknown }): string[] {
  return typeof fallback === 'object' && fallback !== null ? Object.keys(fallback) : [];
}

const wrapped = (prefix: string, document: Uint8Array, suffix: string) => concat(encoder.encode(prefix), document, encoder.encode(suffix));

interface Target {
  method: 'PUT' | 'PATCH';
  path: string;
  contentType: string;
  /** The request body that carries the fuzzed JSON document. */
  body: (document: Uint8Array) => Uint8Array;
}

const boundary = 'fuzz-boundary-7d1f';
const targets: Record<string, Target> = {
  'PUT configuration': { method: 'PUT', path: '/configuration', contentType: 'application/json', body: (d) => d },
  'PATCH configuration': { method: 'PATCH', path: '/configuration', contentType: 'application/merge-patch+json', body: (d) => d },
  'PUT info': { method: 'PUT', path: '/info', contentType: 'application/json', body: (d) => wrapped('{"metadata":', d, '}') },
  'PATCH info': { method: 'PATCH', path: '/info', contentType: 'application/merge-patch+json', body: (d) => wrapped('{"metadata":', d, '}') },
  'deploy configuration part': {
    method: 'PUT',
    path: '',
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: (d) => wrapped(`--${boundary}\r\nContent-Disposition: form-data; name="configuration"\r\n\r\n`, d, `\r\n--${boundary}--\r\n`),
  },
};

describe('fuzzed JSON bodies', () => {
  const site = new BaselineSite('json.fuzz.example');
  const runs = 40;

  beforeAll(() => site.deploy());

  it.each(Object.entries(targets).map(([name, target], salt) => [name, target, salt] as const))('%s: never a 5xx of ours or a hang; the site stays readable and, after a refusal, as it was', { timeout: fuzzTimeout(runs) }, async (name, target, salt) => {
    const authorization = `Bearer ${await token({ scope: 'deploy' })}`;
    const api = `/v2/sites/${site.domain}`;
    await fc.assert(
      fc.asyncProperty(jsonBody, async (document) => {
        const what = `${name} (${document.length} bytes)`;
        const answer = await answered(
          () => call(`${api}${target.path}`, { method: target.method, headers: { 'content-type': target.contentType, authorization }, body: target.body(document) }),
          what,
        );
        expectApiAnswer(answer, what);
        let configuration: { fallback?: unknown } = {};
        for (const path of ['/info', '/configuration']) {
          const read = await answered(() => call(`${api}${path}`, { headers: { authorization } }), `GET ${path}`);
          expect(read.status, `${what}, then GET ${path}: ${new TextDecoder().decode(read.body)}`).toBe(200);
          if (path === '/configuration') ({ configuration } = JSON.parse(new TextDecoder().decode(read.body)));
        }
        for (const path of servedPaths) {
          const page = await answered(() => call(`${site.siteUrl}${path}`, { redirect: 'manual' }), `GET ${path} on the site`);
          // A 5xx only as the site's own fallback page for that status, as its options ask.
          if (page.status >= 500) expect(fallbackStatuses(configuration), `${what}, then GET ${path} on the site: ${page.status}`).toContain(String(page.status));
          // A redirect's target goes out as a URI: printable ASCII, whatever the configuration wrote.
          expect(page.headers.get('location') ?? '', `${what}, then GET ${path} on the site`).toMatch(/^[\x21-\x7e]*$/);
        }
        await site.settle(answer, what);
      }),
      fuzzParameters(runs, salt),
    );
  });
});

describe('fuzzed one-request incremental deploys', () => {
  const site = new BaselineSite('incremental.fuzz.example');
  const runs = 60;

  beforeAll(() => site.deploy());

  it('never a 5xx or a hang; a refusal is a problem and leaves the site served as it was', { timeout: fuzzTimeout(runs) }, async () => {
    const bearer = `Bearer ${await token()}`;
    await fc.assert(
      fc.asyncProperty(incrementalCase, async (fuzzed) => {
        fc.pre(sendableHeaderValue(fuzzed.contentType));
        const body = await incrementalBody(fuzzed, site.liveDeploymentId);
        const what = `POST /v2/sites/${site.domain}/deployments (${fuzzed.contentType}, ${body.length} bytes)`;
        const answer = await answered(
          () => call(`/v2/sites/${site.domain}/deployments`, { method: 'POST', headers: { 'content-type': fuzzed.contentType, authorization: bearer }, body }),
          what,
        );
        expectApiAnswer(answer, what);
        await site.settle(answer, what);
      }),
      fuzzParameters(runs, 7),
    );
  });
});
