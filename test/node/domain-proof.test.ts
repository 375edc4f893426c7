import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import document from '../../schema/openapi.json';
import type { DomainProof, DomainProofRecord } from '../../src/common/api-types';
import { runCli } from './cli/run';
import { type Browser, openBrowser } from './dashboard/browser';
import { makeSiteFolder } from './dashboard/site-folder';
import { type ChallengeServer, startChallengeServer } from './support/challenge-server';
import { type DohFront, startDohFront } from './support/doh-front';
import { type Service, getFromSite, startService, token, wholeForm } from './support/service';

/**
 * Proof of domain control end to end, as a shared service runs it (DOMAIN_PROOF=dns): `npm start`
 * looks the records up at a DNS-over-HTTPS front (./support/doh-front.ts) that asks
 * pebble-challtestsrv's DNS server, where the test adds and removes TXT records through its
 * management API, as a person does in their DNS console. The CLI and the dashboard run against it.
 */

let challenge: ChallengeServer;
let front: DohFront;
let service: Service;
let work: string;
let alice: string;
let bob: string;

const parentDomain = 'sitehost.test';

async function api(path: string, userToken: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${userToken}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

/** A multipart deploy, its small body sent whole with its headers (see wholeForm). */
async function deploy(domain: string, userToken: string, files: Record<string, string> = { 'index.html': `<h1>${domain}</h1>` }): Promise<Response> {
  const form = new FormData();
  for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], path));
  return api(`/v2/sites/${domain}`, userToken, { method: 'PUT', ...(await wholeForm(form)) });
}

async function proofOf(domain: string, userToken: string): Promise<DomainProof> {
  const response = await api(`/v2/domains/${domain}/proof`, userToken);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as DomainProof;
}

/** Adds the record in the domain's DNS (challtestsrv takes names fully qualified). */
const addRecord = (record: DomainProofRecord) => challenge.manage('/set-txt', { host: `${record.name}.`, value: record.value });
/** Removes every TXT record at the record's name. */
const removeRecords = (record: DomainProofRecord) => challenge.manage('/clear-txt', { host: `${record.name}.` });

async function problem(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as Record<string, unknown>;
}

/** Asserts that `body` is valid against a problem response of schema/openapi.json. */
function expectDocumented(response: 'DeployForbidden' | 'BadRequest' | 'Unavailable', body: unknown): void {
  const base = 'https://sitehost.invalid/v2/openapi.json';
  const validator = new Validator({ $ref: `${base}#/components/responses/${response}/content/application~1problem+json/schema` }, '2020-12', false);
  validator.addSchema(document as object, base);
  const result = validator.validate(body);
  expect(result.valid, JSON.stringify(result.errors)).toBe(true);
}

/** The environment of a CI job running the CLI as `userToken`. */
function as(userToken: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}


beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-domain-proof-'));
  challenge = await startChallengeServer();
  front = await startDohFront(challenge.dnsPort);
  service = await startService({
    vars: {
      DOMAIN_PROOF: 'dns',
      DNS_RESOLVER_URL: front.url,
      SITES_PARENT_DOMAIN: parentDomain,
      API_HOSTNAMES: `localhost,127.0.0.1,[::1],api.${parentDomain}`,
      PREVIEW_HOSTNAME: `preview.${parentDomain}`,
    },
  });
  [alice, bob] = await Promise.all([token(service, 'github|alice'), token(service, 'github|bob', 'deploy global_read')]);
}, 150_000);

afterAll(async () => {
  await service?.stop();
  await front?.stop().catch(() => {});
  await challenge?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a first deploy with DOMAIN_PROOF=dns', () => {
  const domain = 'proven.test';

  it("is refused with the record to add until the DNS shows the caller's, then claims the domain for good", async () => {
    const proof = await proofOf(domain, alice);
    const record = { name: `_sitehost-challenge.${domain}`, type: 'TXT', value: proof.value };
    expect(proof).toEqual({ domain, ...record, value: expect.stringMatching(/^[0-9a-f]{32}$/), required: true, verified: false });

    const refused = await deploy(domain, alice);
    expect(refused.status).toBe(403);
    const body = await problem(refused);
    expect(body).toMatchObject({ type: '/problems/domain-proof-required', status: 403, record });
    expect(body.detail).toContain(`${record.name} TXT "${record.value}"`);
    expectDocumented('DeployForbidden', body);
    const incremental = await api(`/v2/sites/${domain}/deployments`, alice, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"files": {}}' });
    expect(await problem(incremental)).toMatchObject({ type: '/problems/domain-proof-required', record });
    // Nothing was stored or claimed.
    expect((await api(`/v2/sites/${domain}/info`, alice)).status).toBe(404);
    expect((await getFromSite(service, domain, '/index.html')).status).toBe(404);

    await addRecord(proof);
    expect(await proofOf(domain, alice)).toMatchObject({ required: true, verified: true });
    const deployed = await deploy(domain, alice, { 'index.html': 'first' });
    expect(deployed.status, await deployed.clone().text()).toBe(200);
    expect(await deployed.json()).toMatchObject({ domain, isNewDomain: true });
    expect(await getFromSite(service, domain, '/index.html')).toEqual({ status: 200, body: 'first' });

    // The claim holds without the record: no change to an owned site looks it up again.
    await removeRecords(proof);
    expect(await proofOf(domain, alice)).toMatchObject({ required: false, verified: false });
    expect((await deploy(domain, alice, { 'index.html': 'second' })).status).toBe(200);
    expect((await api(`/v2/sites/${domain}/files/about.html`, alice, { method: 'PUT', body: 'about' })).status).toBe(201);
    const configured = await api(`/v2/sites/${domain}/configuration`, alice, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"fallback": "/index.html"}' });
    expect(configured.status).toBe(200);
    expect(await getFromSite(service, domain, '/about.html')).toEqual({ status: 200, body: 'about' });
  });

  it('binds the record to its user: another user gets another value, and a 403 naming it, even beside the first record', async () => {
    const contested = 'contested.test';
    const [aliceProof, bobProof] = await Promise.all([proofOf(contested, alice), proofOf(contested, bob)]);
    expect(bobProof.value).not.toBe(aliceProof.value);
    await addRecord(aliceProof);
    const refused = await deploy(contested, bob);
    expect(await problem(refused)).toMatchObject({ status: 403, type: '/problems/domain-proof-required', record: { value: bobProof.value } });
    expect((await deploy(contested, alice)).status).toBe(200);
    await removeRecords(aliceProof);

    // A proven domain's site is its owner's: another user's deploy changes nothing a visitor gets.
    const before = await getFromSite(service, 'proven.test', '/index.html');
    const taken = await deploy('proven.test', bob, { 'index.html': 'taken' });
    expect(await problem(taken)).toMatchObject({ status: 403, type: '/problems/forbidden' });
    expect(await getFromSite(service, 'proven.test', '/index.html')).toEqual(before);
  });

  it('is checked again as it commits: a record removed before an incremental finalize refuses it (the coordinator), and nothing goes live', async () => {
    const domain = 'finalize.test';
    const proof = await proofOf(domain, alice);
    await addRecord(proof);
    const hash = createHash('sha256').update('late').digest('hex');
    const begun = await api(`/v2/sites/${domain}/deployments`, alice, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: { 'index.html': hash } }) });
    expect(begun.status).toBe(201);
    const { id } = (await begun.json()) as { id: string };
    const blobs = new FormData();
    blobs.append('blob', new File(['late'], hash));
    expect((await api(`/v2/sites/${domain}/deployments/${id}/blobs`, alice, { method: 'PUT', body: blobs })).status).toBe(200);

    await removeRecords(proof);
    const refused = await api(`/v2/sites/${domain}/deployments/${id}/finalize`, alice, { method: 'POST' });
    expect(await problem(refused)).toMatchObject({ status: 403, type: '/problems/domain-proof-required', record: { value: proof.value } });
    expect((await api(`/v2/sites/${domain}/info`, alice)).status).toBe(404);
    expect((await getFromSite(service, domain, '/index.html')).status).toBe(404);

    await addRecord(proof);
    expect((await api(`/v2/sites/${domain}/deployments/${id}/finalize`, alice, { method: 'POST' })).status).toBe(200);
    expect(await getFromSite(service, domain, '/index.html')).toEqual({ status: 200, body: 'late' });
    await removeRecords(proof);
  });
});

describe('domains no one can claim, and free subdomains', () => {
  it.each(['co.uk', 'github.io', 'pages.dev'])('refuses the public suffix %s, proof or not (400)', async (suffix) => {
    const proof = await api(`/v2/domains/${suffix}/proof`, alice);
    expect(await problem(proof)).toMatchObject({ status: 400, type: '/problems/domain-not-claimable', reason: 'public-suffix' });
    const refused = await deploy(suffix, alice);
    const body = await problem(refused);
    expect(body).toMatchObject({ status: 400, type: '/problems/domain-not-claimable', reason: 'public-suffix' });
    expectDocumented('BadRequest', body);
  });

  it("refuses the API host, the preview host's names and the parent domain itself (400)", async () => {
    for (const domain of [`api.${parentDomain}`, `abc.preview.${parentDomain}`]) {
      expect(await problem(await deploy(domain, alice))).toMatchObject({ status: 400, type: '/problems/invalid-domain' });
    }
    expect(await problem(await deploy(parentDomain, alice))).toMatchObject({ status: 400, type: '/problems/domain-not-claimable', reason: 'parent-domain' });
  });

  it('claims <name>.<parent domain> first come, first served, without a record; a deeper name needs one', async () => {
    expect(await proofOf(`blog.${parentDomain}`, alice)).toMatchObject({ required: false });
    expect((await deploy(`blog.${parentDomain}`, alice)).status).toBe(200);
    expect(await problem(await deploy(`blog.${parentDomain}`, bob))).toMatchObject({ status: 403, type: '/problems/forbidden' });
    expect(await problem(await deploy(`x.news.${parentDomain}`, bob))).toMatchObject({ status: 403, type: '/problems/domain-proof-required' });
  });
});

describe('a resolver that cannot answer', () => {
  it('refuses a claim with 503 and Retry-After, down or answering garbage; owned sites deploy and serve as before', async () => {
    const before = await getFromSite(service, 'proven.test', '/index.html');
    await front.stop();
    try {
      const refused = await deploy('waiting.test', alice);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      const body = await problem(refused);
      expect(body).toMatchObject({ type: '/problems/unavailable', record: { name: '_sitehost-challenge.waiting.test' } });
      expectDocumented('Unavailable', body);
      expect((await api('/v2/domains/waiting.test/proof', alice)).status).toBe(503);
      // Sites claimed before need no lookup.
      expect((await deploy('contested.test', alice, { 'index.html': 'redeployed while the DNS was down' })).status).toBe(200);
    } finally {
      await front.restart();
    }
    front.mode = 'garbage';
    try {
      const garbled = await deploy('waiting.test', alice);
      expect(garbled.status).toBe(503);
      expect(await problem(garbled)).toMatchObject({ detail: expect.stringContaining('answered something that is not JSON') });
    } finally {
      front.mode = 'dns';
    }
    expect(await proofOf('waiting.test', alice)).toMatchObject({ verified: false });
    expect((await api('/v2/sites/waiting.test/info', alice)).status).toBe(404);
    expect(await getFromSite(service, 'proven.test', '/index.html')).toEqual(before);
  });
});

describe('a resolver that answers too much, or too slowly', () => {
  it('reads at most 64 KiB of an answer, and says a body that stops arriving timed out', async () => {
    front.mode = 'huge';
    try {
      const huge = await deploy('waiting.test', alice);
      expect(huge.status).toBe(503);
      expect(huge.headers.get('retry-after')).toBe('30');
      expect(await problem(huge)).toMatchObject({ detail: expect.stringContaining('the resolver answered more than 65536 bytes') });
      // The service stopped reading at the limit: of 60 MiB, what sockets buffer at most was sent.
      expect(front.hugeBytesSent).toBeLessThan(16 * 1024 * 1024);
      front.mode = 'stalled';
      const stalled = await deploy('waiting.test', alice);
      expect(stalled.status).toBe(503);
      const body = await problem(stalled);
      expect(body).toMatchObject({ detail: expect.stringContaining('the resolver timed out: no whole answer within 5 seconds') });
      expect(String(body.detail)).not.toContain('not JSON');
    } finally {
      front.mode = 'dns';
    }
    expect(await proofOf('waiting.test', alice)).toMatchObject({ verified: false });
  });
});

describe('the CLI', () => {
  const domain = 'cli-proof.test';

  it('prints the record (`sitehost domains proof`), and a deploy refused for it says what to add and how to check it', async () => {
    const expected = await proofOf(domain, bob);
    const shown = await runCli(['domains', 'proof', domain], { env: as(bob) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`_sitehost-challenge.${domain}`);
    expect(shown.stdout).toContain(expected.value);
    expect(shown.stdout).toContain('Not visible in DNS yet');
    const json = await runCli(['domains', 'proof', domain, '--json'], { env: as(bob) });
    expect(JSON.parse(json.stdout)).toEqual(expected);

    const folder = join(work, 'cli-site');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'index.html'), 'from the CLI');
    const refused = await runCli(['deploy', folder, '--domain', domain], { env: as(bob) });
    expect(refused.code, refused.stderr).toBe(5);
    // Progress lines, then the error in one line.
    const line = refused.stderr.trim().split('\n').at(-1)!;
    expect(line).toMatch(/^Error: Proof of domain control required: add the DNS record /);
    expect(line).toContain(`_sitehost-challenge.${domain} TXT "${expected.value}"`);
    expect(line).toContain(`sitehost domains proof ${domain}`);

    await addRecord(expected);
    expect((await runCli(['domains', 'proof', domain], { env: as(bob) })).stdout).toContain('Verified');
    const deployed = await runCli(['deploy', folder, '--domain', domain], { env: as(bob) });
    expect(deployed.code, deployed.stderr).toBe(0);
    await removeRecords(expected);
    expect((await runCli(['domains', 'proof', domain], { env: as(bob) })).stdout).toContain('needs no proof');
  });
});

describe('the dashboard', () => {
  let browser: Browser | undefined;
  let site: { parent: string; folder: string } | undefined;

  afterAll(async () => {
    await browser?.close();
    if (site) await rm(site.parent, { recursive: true, force: true });
  });

  it('shows the record a refused deploy waits for, and checks the DNS for it', async () => {
    const domain = 'dashboard-proof.test';
    [browser, site] = await Promise.all([openBrowser(), makeSiteFolder()]);
    const page = await browser.context.newPage();
    await page.goto(`${service.origin}/#/deploy/${domain}`);
    await page.getByLabel('API token').fill(bob);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Deploy a site');
    await page.locator('#folder').setInputFiles(site.folder);
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();

    const expected = await proofOf(domain, bob);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.locator('[data-record="value"]').textContent()).toBe(expected.value);
    expect(await alert.locator('[data-record="name"]').textContent()).toBe(`_sitehost-challenge.${domain}`);
    await alert.getByRole('button', { name: 'Check the DNS' }).click();
    await expect.poll(() => page.locator('#proof-state').textContent()).toContain('Not visible in DNS yet');
    await addRecord(expected);
    await alert.getByRole('button', { name: 'Check the DNS' }).click();
    await expect.poll(() => page.locator('#proof-state').textContent()).toContain('Verified');
    await removeRecords(expected);
  });
});
