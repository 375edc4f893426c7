import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { CloudflareApiError, directZoneApi } from '../../src/cloudflare-api/zone-api';
import { CloudflareIssuer } from '../../src/certificates/cloudflare-for-saas/cloudflare-issuer';
import type { IssueRequest } from '../../src/certificates/issuer';
import { runCertificateJob } from '../../src/certificates/jobs';
import { getCertificate } from '../../src/storage/certificates';
import { authorized } from '../support/client';
import { hostedSite, jobMessage } from './support';
import active from './cloudflare-responses/get-active.json';
import authenticationError from './cloudflare-responses/authentication-error.json';
import createDuplicate from './cloudflare-responses/create-duplicate.json';
import createPending from './cloudflare-responses/create-pending.json';
import deleted from './cloudflare-responses/delete.json';
import listByHostname from './cloudflare-responses/list-by-hostname.json';
import notFound from './cloudflare-responses/not-found.json';
import pendingValidation from './cloudflare-responses/get-pending-validation.json';
import validationTimedOut from './cloudflare-responses/get-validation-timed-out.json';

/**
 * The Cloudflare for SaaS issuer against Cloudflare's API as documented: each test lists the
 * requests it expects and answers them with response bodies in the API's documented shape
 * (test/certificates/cloudflare-responses). The fetch is injected, so nothing else is replaced.
 */
const zone = '023e105f4ecef8ad9ca31a8372d0c353';
const apiToken = 'test-api-token';
const base = `https://api.cloudflare.com/client/v4/zones/${zone}/custom_hostnames`;
const hostnameId = createPending.result.id;
const domain = 'shop.customer.example';

interface Exchange {
  method: string;
  url: string;
  body?: unknown;
  status: number;
  response: unknown;
}

function replay(exchanges: Exchange[]) {
  const pending = [...exchanges];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const expected = pending.shift();
    if (!expected) throw new Error(`Unexpected request ${request.method} ${request.url}`);
    expect(`${request.method} ${request.url}`).toBe(`${expected.method} ${expected.url}`);
    expect(request.headers.get('authorization')).toBe(`Bearer ${apiToken}`);
    if (expected.body !== undefined) {
      expect(request.headers.get('content-type')).toBe('application/json');
      expect(await request.json()).toEqual(expected.body);
    }
    return Response.json(expected.response, { status: expected.status });
  };
  return { issuer: new CloudflareIssuer(directZoneApi({ zoneId: zone, apiToken, fetch })), done: () => expect(pending).toEqual([]) };
}

function request(externalId: string | null = null) {
  const remembered: string[] = [];
  const issueRequest: IssueRequest = {
    domain,
    externalId,
    rememberExternalId: async (id) => void remembered.push(id),
  };
  return { issueRequest, remembered };
}

const createRequest = { hostname: domain, ssl: { method: 'http', type: 'dv' } };

describe('CERT_ISSUER=cloudflare: custom hostnames', () => {
  it('creates the custom hostname, keeps its id and waits while Cloudflare initializes it', async () => {
    const { issuer, done } = replay([{ method: 'POST', url: base, body: createRequest, status: 200, response: createPending }]);
    const { issueRequest, remembered } = request();
    expect(await issuer.issue(issueRequest)).toEqual({
      kind: 'waiting',
      detail: `Cloudflare's certificate for ${domain} is initializing.`,
    });
    expect(remembered).toEqual([hostnameId]);
    done();
  });

  it('polls a known hostname and passes on what Cloudflare says blocks validation', async () => {
    const { issuer, done } = replay([{ method: 'GET', url: `${base}/${hostnameId}`, status: 200, response: pendingValidation }]);
    const { issueRequest, remembered } = request(hostnameId);
    expect(await issuer.issue(issueRequest)).toEqual({
      kind: 'waiting',
      detail:
        `Cloudflare's certificate for ${domain} is pending_validation. SERVFAIL looking up CAA for ${domain} ` +
        'None of the A or AAAA records are owned by this account and the pre-generated ownership verification token was not found.',
    });
    expect(remembered).toEqual([]);
    done();
  });

  it('reports an active certificate as issued with its dates; Cloudflare keeps the key', async () => {
    const { issuer, done } = replay([{ method: 'GET', url: `${base}/${hostnameId}`, status: 200, response: active }]);
    expect(await issuer.issue(request(hostnameId).issueRequest)).toEqual({
      kind: 'issued',
      issued: Date.parse('2026-11-20T09:21:33Z'),
      expires: Date.parse('2027-02-18T09:21:32Z'),
      chain: null,
      keyPem: null,
      externalId: hostnameId,
    });
    done();
  });

  it('restarts a validation that timed out', async () => {
    const { issuer, done } = replay([
      { method: 'GET', url: `${base}/${hostnameId}`, status: 200, response: validationTimedOut },
      { method: 'PATCH', url: `${base}/${hostnameId}`, body: { ssl: { method: 'http', type: 'dv' } }, status: 200, response: pendingValidation },
    ]);
    const outcome = await issuer.issue(request(hostnameId).issueRequest);
    expect(outcome).toMatchObject({ kind: 'waiting' });
    expect(outcome.kind === 'waiting' && outcome.detail).toMatch(/^Validation of shop\.customer\.example timed out at Cloudflare and was restarted\./);
    done();
  });

  it('adopts the existing hostname when Cloudflare reports a duplicate (409, code 1406)', async () => {
    const { issuer, done } = replay([
      { method: 'POST', url: base, body: createRequest, status: 409, response: createDuplicate },
      { method: 'GET', url: `${base}?hostname=${domain}`, status: 200, response: listByHostname },
    ]);
    const { issueRequest, remembered } = request();
    expect(await issuer.issue(issueRequest)).toMatchObject({ kind: 'waiting' });
    expect(remembered).toEqual([hostnameId]);
    done();
  });

  it('creates the hostname again when the known one was deleted at Cloudflare (404)', async () => {
    const { issuer, done } = replay([
      { method: 'GET', url: `${base}/gone-id`, status: 404, response: notFound },
      { method: 'POST', url: base, body: createRequest, status: 200, response: createPending },
    ]);
    const { issueRequest, remembered } = request('gone-id');
    expect(await issuer.issue(issueRequest)).toMatchObject({ kind: 'waiting' });
    expect(remembered).toEqual([hostnameId]);
    done();
  });

  it("fails with Cloudflare's error when the token is refused", async () => {
    const { issuer } = replay([{ method: 'POST', url: base, body: createRequest, status: 403, response: authenticationError }]);
    const failure = issuer.issue(request().issueRequest);
    await expect(failure).rejects.toBeInstanceOf(CloudflareApiError);
    await expect(failure).rejects.toThrow('Cloudflare API: Authentication error (10000)');
  });

  it('deletes the hostname; one already gone is fine', async () => {
    const { issuer, done } = replay([
      { method: 'DELETE', url: `${base}/${hostnameId}`, status: 200, response: deleted },
      { method: 'DELETE', url: `${base}/${hostnameId}`, status: 404, response: notFound },
    ]);
    await issuer.remove(domain, hostnameId);
    await issuer.remove(domain, hostnameId);
    done();
  });
});

describe('certificate jobs with Cloudflare for SaaS', () => {
  const cloudflareEnv = { ...env, CERT_ISSUER: 'cloudflare' };

  it('record the certificate Cloudflare issued, without exporting a key, and delete the hostname after unpublish', async () => {
    const site = 'cf-job.example';
    await hostedSite(site);
    const created = structuredClone(createPending);
    created.result.hostname = site;
    const activated = structuredClone(active);
    activated.result.hostname = site;
    const { issuer, done } = replay([
      { method: 'POST', url: base, body: { ...createRequest, hostname: site }, status: 200, response: created },
      { method: 'GET', url: `${base}/${hostnameId}`, status: 200, response: activated },
    ]);
    const message = jobMessage(site);
    expect(await runCertificateJob(cloudflareEnv, message, () => issuer)).toMatchObject({ kind: 'retry' });
    expect(await runCertificateJob(cloudflareEnv, { ...message, attempts: 2 }, () => issuer)).toEqual({ kind: 'ack' });
    done();
    expect(await getCertificate(env.DB, site)).toMatchObject({
      status: 'issued',
      issuer: 'cloudflare',
      externalId: hostnameId,
      chain: null,
      encryptedKey: null,
      expires: Date.parse('2027-02-18T09:21:32Z'),
    });
    const exported = await authorized(`/v2/sites/${site}/certificate`, {}, { scope: 'global_read' });
    expect(exported.status).toBe(404);

    expect((await authorized(`/v2/sites/${site}`, { method: 'DELETE' })).status).toBe(200);
    expect(await getCertificate(env.DB, site)).toBeNull();
    // The unpublish queued this job; here it runs against the recorded API.
    const removal = replay([{ method: 'DELETE', url: `${base}/${hostnameId}`, status: 200, response: deleted }]);
    const removeJob = { id: 'remove-1', attempts: 1, body: { domain: site, removeCustomHostname: hostnameId } };
    expect(await runCertificateJob(cloudflareEnv, removeJob, () => removal.issuer)).toEqual({ kind: 'ack' });
    removal.done();
  });

  it('keep a hostname the republished domain uses again', async () => {
    const site = 'cf-republished.example';
    await hostedSite(site);
    const created = structuredClone(createPending);
    created.result.hostname = site;
    const { issuer } = replay([{ method: 'POST', url: base, body: { ...createRequest, hostname: site }, status: 200, response: created }]);
    await runCertificateJob(cloudflareEnv, jobMessage(site), () => issuer);
    const untouched = replay([]);
    const removeJob = { id: 'remove-2', attempts: 1, body: { domain: site, removeCustomHostname: hostnameId } };
    expect(await runCertificateJob(cloudflareEnv, removeJob, () => untouched.issuer)).toEqual({ kind: 'ack' });
  });
});
