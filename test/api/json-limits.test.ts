import { describe, expect, it } from 'vitest';
import { authorized, deploy, problemOf } from '../support/client';
import { deployed, site } from '../serving/support';

/** `{"root":[[…]]}` nested `depth` levels deep, counting the outer object. */
const nested = (depth: number) => `{"root":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const infoNested = (depth: number) => `{"metadata":{"a":${nested(depth - 2)}}}`;

async function observed(domain: string): Promise<string[]> {
  const responses = [await site(domain, '/'), await authorized(`/v2/sites/${domain}/info`), await authorized(`/v2/sites/${domain}/configuration`)];
  expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
  return Promise.all(responses.map((response) => response.text()));
}

type Send = (domain: string, text: string) => Promise<Response>;
const jsonRequest = (resource: string, method: string, type: string): Send => (domain, text) =>
  authorized(`/v2/sites/${domain}/${resource}`, { method, headers: { 'content-type': type }, body: text });

const senders: [string, Send, (depth: number) => string][] = [
  ['PUT configuration', jsonRequest('configuration', 'PUT', 'application/json'), nested],
  ['PATCH configuration', jsonRequest('configuration', 'PATCH', 'application/merge-patch+json'), nested],
  ['PUT info', jsonRequest('info', 'PUT', 'application/json'), infoNested],
  ['PATCH info', jsonRequest('info', 'PATCH', 'application/merge-patch+json'), infoNested],
  ['the deploy configuration part', (domain, text) => deploy(domain, { 'index.html': '<p>other</p>' }, text), nested],
];

describe('JSON nesting depth (MAX_JSON_DEPTH)', () => {
  it.each(senders)('%s: 400 naming the limit past 64 levels, even 100,000 deep; the site stays', async (_, send, document) => {
    const domain = `deep-${Math.random().toString(36).slice(2, 8)}.example`;
    await deployed(domain, { 'index.html': '<p>home</p>' }, { root: '' });
    const before = await observed(domain);
    for (const depth of [65, 2_000, 100_000]) {
      const response = await send(domain, document(depth));
      expect(response.status, `${depth} levels`).toBe(400);
      expect(await problemOf(response)).toMatchObject({ limit: 'MAX_JSON_DEPTH', value: 64 });
    }
    // At the limit the document is parsed: what answers is the schema or metadata check.
    const atLimit = await problemOf(await send(domain, document(64)));
    expect(atLimit).toMatchObject({ status: 400 });
    expect(atLimit.limit).toBeUndefined();
    expect(await observed(domain)).toEqual(before);
  });

  it('does not count brackets inside strings', async () => {
    const domain = 'deep-strings.example';
    await deployed(domain, { 'index.html': '<p>home</p>' });
    const headers = [{ fields: { 'X-Brackets': '['.repeat(5_000) } }];
    const response = await jsonRequest('configuration', 'PUT', 'application/json')(domain, JSON.stringify({ headers }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { configuration: unknown }).configuration).toEqual({ headers });
  });
});
