import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import { getSite } from '../../src/storage/sites-table';
import { authorized, authorizedWith, deploy, deployForm, problemOf } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { storedKeys } from '../support/live-files';

/**
 * Proof of domain control through the Worker, with settings the test chooses (the binding env
 * has DOMAIN_PROOF=off, as `npm start`). No DNS server runs here: the resolver is a closed port,
 * so these tests see what needs no answer from it. test/node/domain-proof.test.ts asks a real one.
 */
const unreachableResolver = 'http://127.0.0.1:9/dns-query';
const dns = { DOMAIN_PROOF: 'dns', DNS_RESOLVER_URL: unreachableResolver };

const put = (files: Record<string, string>) => ({ method: 'PUT', body: deployForm(files) });
const manifest = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: {} }) };

async function expectNothingStored(domain: string): Promise<void> {
  expect(await getSite(env.DB, domain)).toBeNull();
  expect(await storedKeys(domain)).toEqual([]);
}

describe('GET /v2/domains/<domain>/proof', () => {
  it('answers the record bound to the caller; with DOMAIN_PROOF=off nothing is required or looked up', async () => {
    const response = await authorized('/v2/domains/Proof.Example/proof');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const proof = (await response.json()) as Record<string, unknown>;
    expect(proof).toEqual({
      domain: 'proof.example',
      name: '_sitehost-challenge.proof.example',
      type: 'TXT',
      value: expect.stringMatching(/^[0-9a-f]{32}$/),
      required: false,
      verified: false,
    });
    expect(await (await authorized('/v2/domains/proof.example/proof')).json()).toEqual(proof);
    const another = (await (await authorized('/v2/domains/proof.example/proof', {}, { user: 'github|2' })).json()) as { value: string };
    expect(another.value).not.toBe(proof.value);
  });

  it('needs the deploy scope, and refuses what can never be claimed', async () => {
    expect((await authorized('/v2/domains/proof.example/proof', {}, { scope: 'global_read' })).status).toBe(403);
    const suffix = await authorized('/v2/domains/co.uk/proof');
    expect(suffix.status).toBe(400);
    expect(await problemOf(suffix)).toMatchObject({ type: '/problems/domain-not-claimable', reason: 'public-suffix' });
    expect((await authorized('/v2/domains/a..b/proof')).status).toBe(400);
  });

  it('refuses a domain whose record would be longer than a DNS name may be (400), asking no resolver', async () => {
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(40)}.example`;
    expect(long.length).toBeLessThanOrEqual(253);
    for (const response of [await authorizedWith(dns, `/v2/domains/${long}/proof`), await authorizedWith(dns, `/v2/sites/${long}`, put({ 'index.html': 'x' }))]) {
      expect(await problemOf(response)).toMatchObject({ status: 400, type: '/problems/domain-not-claimable', reason: 'name-too-long' });
    }
  });

  it('with DOMAIN_PROOF=dns: 503 with Retry-After and the record while the resolver cannot be asked', async () => {
    const { value } = (await (await authorized('/v2/domains/down.example/proof')).json()) as { value: string };
    const response = await authorizedWith(dns, '/v2/domains/down.example/proof');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(await problemOf(response)).toMatchObject({
      type: '/problems/unavailable',
      detail: expect.stringMatching(/^The DNS of down\.example cannot be checked .* could not be reached/),
      record: { name: '_sitehost-challenge.down.example', type: 'TXT', value },
    });
  });

  it('needs no proof for a free subdomain, or a site the caller owns: nothing is looked up', async () => {
    const parent = { ...dns, SITES_PARENT_DOMAIN: 'sitehost.example' };
    expect(await (await authorizedWith(parent, '/v2/domains/blog.sitehost.example/proof')).json()).toMatchObject({ required: false, verified: false });
    expect((await authorizedWith(parent, '/v2/domains/sitehost.example/proof')).status).toBe(400);
  });
});

describe('a first deploy, with DOMAIN_PROOF=dns', () => {
  it('is refused before its body is read while the DNS cannot be asked (503), and stores nothing', async () => {
    const multipart = await authorizedWith(dns, '/v2/sites/unproven.example', put({ 'index.html': 'x' }));
    expect(multipart.status).toBe(503);
    expect(multipart.headers.get('retry-after')).toBe('30');
    const incremental = await authorizedWith(dns, '/v2/sites/unproven.example/deployments', manifest);
    expect(incremental.status).toBe(503);
    await expectNothingStored('unproven.example');
  });

  it("is not asked of a site's owner: sites claimed before keep deploying", async () => {
    expect((await deploy('claimed-before.example', { 'index.html': 'one' })).status).toBe(200);
    const redeploy = await authorizedWith(dns, '/v2/sites/claimed-before.example', put({ 'index.html': 'two' }));
    expect(redeploy.status).toBe(200);
    expect((await authorizedWith(dns, '/v2/sites/claimed-before.example/deployments', manifest)).status).toBe(201);
    // Another user still meets the owner's claim, not a proof.
    const other = await authorizedWith(dns, '/v2/sites/claimed-before.example', put({ 'index.html': 'x' }), { user: 'github|2' });
    expect(await problemOf(other)).toMatchObject({ status: 403, type: '/problems/forbidden' });
  });

  it('claims a name one label under SITES_PARENT_DOMAIN first come, first served; never the parent itself', async () => {
    const parent = { ...dns, SITES_PARENT_DOMAIN: 'sitehost.example' };
    expect((await authorizedWith(parent, '/v2/sites/blog.sitehost.example', put({ 'index.html': 'x' }))).status).toBe(200);
    const taken = await authorizedWith(parent, '/v2/sites/blog.sitehost.example', put({ 'index.html': 'y' }), { user: 'github|2' });
    expect(taken.status).toBe(403);
    const itself = await authorizedWith(parent, '/v2/sites/sitehost.example', put({ 'index.html': 'x' }));
    expect(await problemOf(itself)).toMatchObject({ status: 400, type: '/problems/domain-not-claimable', reason: 'parent-domain' });
    // Deeper names are no free subdomain: they need proof, which only the parent's DNS can give.
    expect((await authorizedWith(parent, '/v2/sites/a.blog2.sitehost.example', put({ 'index.html': 'x' }))).status).toBe(503);
    await expectNothingStored('sitehost.example');
  });
});

describe('domains no one can claim, with DOMAIN_PROOF=off too', () => {
  it.each(['co.uk', 'github.io', 'pages.dev'])('refuses a deploy to the public suffix %s (400), storing nothing', async (domain) => {
    const multipart = await deploy(domain, { 'index.html': 'x' });
    expect(await problemOf(multipart)).toEqual({
      type: '/problems/domain-not-claimable',
      title: 'Domain cannot be claimed',
      status: 400,
      detail: `"${domain}" cannot be claimed: it is a public suffix, under which anyone can register names (the Public Suffix List).`,
      reason: 'public-suffix',
    });
    const incremental = await authorized(`/v2/sites/${domain}/deployments`, manifest);
    expect(await problemOf(incremental)).toMatchObject({ status: 400, reason: 'public-suffix' });
    await expectNothingStored(domain);
  });

  it('refuses the API and preview hosts as no site at all (400)', async () => {
    // A public API hostname needs the Cloudflare purge (a local one would reach no other location).
    const hosts = { API_HOSTNAMES: 'api.sitehost.example', PREVIEW_HOSTNAME: 'preview.sitehost.example', EDGE_PURGE: 'cloudflare', CLOUDFLARE_ZONE_ID: 'test-zone' };
    for (const domain of ['api.sitehost.example', 'preview.sitehost.example', 'abc.preview.sitehost.example']) {
      const response = await authorizedWith(hosts, `http://api.sitehost.example/v2/sites/${domain}`, put({ 'index.html': 'x' }));
      expect(await problemOf(response)).toMatchObject({ status: 400, type: '/problems/invalid-domain' });
      expect((await authorizedWith(hosts, `http://api.sitehost.example/v2/domains/${domain}/proof`)).status).toBe(400);
    }
  });
});

describe('the coordinator, as it commits a claim', () => {
  it('checks the claim itself: a deploy the Worker let through (it saw a site, since unpublished) is refused and leaves nothing', async () => {
    const domain = 'vanished.example';
    await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
      (instance as unknown as { env: typeof env }).env = { ...env, ...dns };
    });
    // The Worker runs with DOMAIN_PROOF=off here: only the coordinator asks for the proof.
    const response = await deploy(domain, { 'index.html': 'x' });
    expect(response.status).toBe(503);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/unavailable', record: { name: `_sitehost-challenge.${domain}` } });
    expect(response.headers.get('retry-after')).toBe('30');
    await expectNothingStored(domain);
  });
});
