import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, getFromSite, sharedService, token } from './support/service';

/**
 * A site's rules cannot stall the service, nor break its own answers, against `npm start`:
 * the reproductions of the issue (rules whose matching cost exploded with the path, and
 * header values nothing bounded) as an attacker ran them. That matching costs a bounded number
 * of steps is counted, not timed, in test/rules/rule-cost.unit.test.ts; here the pathological
 * requests are simply answered, and so is a neighbour meanwhile.
 */

const attacker = 'attacker.example';
const neighbour = 'neighbour.example';
const files: Record<string, string> = { 'index.html': '<h1>App</h1>', 'assets/app.css': 'body { color: teal }' };
const configuration = { fallback: '/index.html', headers: [{ uri: '/assets/{file}', fields: { 'X-Asset': '{file}' } }] };
/** The issue's path: `/b/b/…/c`, 4,096 bytes. */
const issuePath = `/${'b/'.repeat(2047)}c`;

let service: RunningService;
let owner: string;

function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${owner}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

function deploy(domain: string, siteFiles: Record<string, string>, hostOptions: unknown): Promise<Response> {
  const form = new FormData();
  form.append('configuration', JSON.stringify(hostOptions));
  for (const [path, body] of Object.entries(siteFiles)) form.append('directory', new File([body], path));
  return api(`/v2/sites/${domain}`, { method: 'PUT', body: form });
}

function putConfiguration(domain: string, hostOptions: unknown): Promise<Response> {
  return api(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(hostOptions) });
}

async function expectLimit(response: Response, limit: string): Promise<void> {
  expect(response.status).toBe(413);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(await response.json()).toMatchObject({ status: 413, limit });
}

/** The attacker's site still serves what it deployed, with its own configuration. */
async function expectAttackerIntact(): Promise<void> {
  for (const [path, body] of Object.entries(files)) expect(await getFromSite(service, attacker, `/${path}`)).toMatchObject({ status: 200, body });
  expect(await (await api(`/v2/sites/${attacker}/configuration`)).json()).toMatchObject({ configuration });
}

beforeAll(async () => {
  service = await sharedService();
  owner = await token(service, 'github|bounded-rules', 'deploy global_read');
  expect((await deploy(attacker, files, configuration)).status).toBe(200);
  expect((await deploy(neighbour, { 'index.html': 'next door' }, {})).status).toBe(200);
}, 120_000);

describe('rules that would cost time exploding with the path', () => {
  it('the issue’s 10 rules of 409 {/a*} are refused, naming the limit, and the site stays', async () => {
    const from = '{/a*}'.repeat(409);
    await expectLimit(await putConfiguration(attacker, { ...configuration, redirects: Array.from({ length: 10 }, () => ({ from, to: '/y' })) }), 'MAX_TEMPLATE_VARIABLES');
    await expectAttackerIntact();
  });

  it('the worst rules the limits allow answer the issue’s 4,096-byte path, and a neighbour is answered meanwhile', async () => {
    const from = '{/a*}'.repeat(16);
    const worst = {
      ...configuration,
      redirects: Array.from({ length: 200 }, () => ({ from, to: '/y' })),
      headers: [...configuration.headers, ...Array.from({ length: 199 }, () => ({ uri: from, fields: { 'X-Matched': 'yes' } }))],
    };
    expect((await putConfiguration(attacker, worst)).status).toBe(200);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => getFromSite(service, attacker, issuePath)),
      ...Array.from({ length: 4 }, () => getFromSite(service, neighbour, '/')),
    ]);
    // No redirect reads one value for `a` from the whole path; the single-page fallback answers it.
    for (const answer of answers.slice(0, 4)) expect(answer).toEqual({ status: 200, body: files['index.html'] });
    for (const answer of answers.slice(4)) expect(answer).toEqual({ status: 200, body: 'next door' });
    expect((await putConfiguration(attacker, configuration)).status).toBe(200);
  });
});

describe('header values the rules add', () => {
  const big = { ...configuration, headers: [{ fields: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-Big-${i}`, 'a'.repeat(100_000)])) }] };

  it('ten 100,000-byte values are refused by a configuration PUT, naming the limit, and the site stays', async () => {
    await expectLimit(await putConfiguration(attacker, big), 'MAX_HEADER_BYTES');
    await expectAttackerIntact();
  });

  it('and by a multipart deploy', async () => {
    await expectLimit(await deploy(attacker, { ...files, 'index.html': 'replaced' }, big), 'MAX_HEADER_BYTES');
    await expectAttackerIntact();
  });
});
