/**
 * Certificate jobs: with a scripted ACME issuer (issue once, retry, fail to the dead-letter queue,
 * CERT_ISSUER=off) and with Cloudflare for SaaS against its API's recorded answers.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { CloudflareApiError, directZoneApi } from '../../src/cloudflare-api/zone-api';
import { CloudflareIssuer } from '../../src/certificates/cloudflare-for-saas/cloudflare-issuer';
import type { IssueOutcome, IssueRequest } from '../../src/certificates/issuer';
import { runCertificateJob } from '../../src/certificates/jobs';
import { getCertificate, getCertificateSummary } from '../../src/storage/certificates';
import { authorized, deploy } from '../support/client';
import { Subscriber } from '../events/subscriber';
import { ScriptedIssuer, acmeEnv, hostedSite, issuing, jobMessage, testCertificate } from './support';
import active from './cloudflare-responses/get-active.json';
import authenticationError from './cloudflare-responses/authentication-error.json';
import createDuplicate from './cloudflare-responses/create-duplicate.json';
import createPending from './cloudflare-responses/create-pending.json';
import deleted from './cloudflare-responses/delete.json';
import listByHostname from './cloudflare-responses/list-by-hostname.json';
import notFound from './cloudflare-responses/not-found.json';
import pendingValidation from './cloudflare-responses/get-pending-validation.json';
import validationTimedOut from './cloudflare-responses/get-validation-timed-out.json';

const timestampForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('CERT_ISSUER=off', () => {
  it('a deploy queues a job that records the certificate as off; nothing pretends one exists', async () => {
    expect((await deploy('cert-off.example', { 'index.html': 'x' })).status).toBe(200);
    const record = await until(() => getCertificate(env.DB, 'cert-off.example'), (value) => value !== null);
    expect(record).toMatchObject({ status: 'off', issued: null, expires: null, chain: null, encryptedKey: null });
    expect(await getCertificateSummary(env.DB, 'cert-off.example')).toEqual({ status: 'off', issued: null, expires: null });
    expect(await getCertificateSummary(env.DB, 'cert-off.example', 'off')).toEqual({ status: 'off', issued: null, expires: null });
    const response = await authorized('/v2/sites/cert-off.example/certificate', {}, { scope: 'global_read' });
    expect(response.status).toBe(404);
  });
});

describe('a certificate job', () => {
  it('issues, stores the certificate and reports it in the summary and as a certificate-issue event', async () => {
    const domain = 'cert-issue.example';
    await hostedSite(domain);
    const events = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));
    const certificate = await testCertificate(domain);
    const issuer = new ScriptedIssuer(issuing(certificate));

    expect(await getCertificateSummary(env.DB, domain, 'acme')).toEqual({ status: 'pending', issued: null, expires: null });
    expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });

    const summary = await getCertificateSummary(env.DB, domain, 'acme');
    expect(summary).toEqual({
      status: 'issued',
      issued: new Date(certificate.notBefore).toISOString().slice(0, 23),
      expires: new Date(certificate.notAfter).toISOString().slice(0, 23),
    });
    expect(summary.issued).toMatch(timestampForm);
    await events.until(() => events.of([domain]).some((event) => event.event === 'certificate-issue'));
    const [issued] = events.of([domain]).filter((event) => event.event === 'certificate-issue');
    expect(JSON.parse(issued!.data)).toEqual({ type: 'certificate-issue', domain, issued: summary.issued, expires: summary.expires });
    await events.close();
  });

  it('issues once when its message is delivered twice, one after the other or at the same time', async () => {
    const domain = 'cert-twice.example';
    await hostedSite(domain);
    const certificate = await testCertificate(domain);
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const issuer = new ScriptedIssuer(async (request) => {
      await slow;
      return issuing(certificate)(request);
    });

    const message = jobMessage(domain);
    const concurrent = [
      runCertificateJob(acmeEnv, message, issuer.select),
      runCertificateJob(acmeEnv, jobMessage(domain), issuer.select),
    ];
    await until(async () => issuer.requests.length, (count) => count > 0);
    // The second job found the first one's lease and stopped before reaching the issuer.
    expect(await concurrent[1]).toEqual({ kind: 'ack' });
    release();
    expect(await concurrent[0]).toEqual({ kind: 'ack' });
    expect(await runCertificateJob(acmeEnv, { ...message, attempts: 2 }, issuer.select)).toEqual({ kind: 'ack' });
    expect(issuer.requests).toHaveLength(1);
    expect((await getCertificate(env.DB, domain))?.status).toBe('issued');
  });

  it('retries a failure with exponential backoff, then fails with the reason and goes to the dead-letter queue', async () => {
    const domain = 'cert-refused.example';
    await hostedSite(domain);
    const events = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));
    const reason = 'The ACME server refused the http-01 challenge: connection refused (acme:connection)';
    const issuer = new ScriptedIssuer(async () => {
      throw new Error(reason);
    });
    const message = jobMessage(domain);
    const base = Number(acmeEnv.CERT_RETRY_BASE_SECONDS);
    const maxRetries = Number(acmeEnv.CERT_JOB_MAX_RETRIES);
    for (let attempts = 1; attempts <= maxRetries; attempts++) {
      const disposition = await runCertificateJob(acmeEnv, { ...message, attempts }, issuer.select);
      expect(disposition).toEqual({ kind: 'retry', delaySeconds: base * 2 ** (attempts - 1) });
      expect(await getCertificateSummary(env.DB, domain, 'acme')).toEqual({ status: 'pending', issued: null, expires: null, reason });
    }
    // The last try: failed, and retried once more so that the queue moves it to the dead-letter queue.
    expect(await runCertificateJob(acmeEnv, { ...message, attempts: maxRetries + 1 }, issuer.select)).toEqual({
      kind: 'retry',
      delaySeconds: 0,
    });
    expect(await getCertificateSummary(env.DB, domain, 'acme')).toEqual({ status: 'failed', issued: null, expires: null, reason });
    expect(issuer.requests).toHaveLength(maxRetries + 1);
    await events.until(() => events.of([domain]).some((event) => event.event === 'certificate-fail'));
    const [failed] = events.of([domain]).filter((event) => event.event === 'certificate-fail');
    expect(JSON.parse(failed!.data)).toEqual({ type: 'certificate-fail', domain, reason });
    await events.close();
  });

  it('retries while the issuer is still validating, keeping its handle for the next attempt', async () => {
    const domain = 'cert-waiting.example';
    await hostedSite(domain);
    const certificate = await testCertificate(domain);
    const answers: IssueOutcome[] = [{ kind: 'waiting', detail: 'pending_validation' }];
    const issuer = new ScriptedIssuer(async (request) => {
      if (request.externalId === null) await request.rememberExternalId('hostname-1');
      return answers.shift() ?? issuing(certificate)(request);
    });
    const message = jobMessage(domain);
    expect(await runCertificateJob(acmeEnv, message, issuer.select)).toMatchObject({ kind: 'retry' });
    expect(await getCertificateSummary(env.DB, domain, 'acme')).toMatchObject({ status: 'pending', reason: 'pending_validation' });
    expect(await runCertificateJob(acmeEnv, { ...message, attempts: 2 }, issuer.select)).toEqual({ kind: 'ack' });
    expect(issuer.requests.map((request) => request.externalId)).toEqual([null, 'hostname-1']);
    expect(await getCertificate(env.DB, domain)).toMatchObject({ status: 'issued', externalId: null, reason: null });
  });

  it('does nothing for a domain that is not hosted', async () => {
    const issuer = new ScriptedIssuer(async () => {
      throw new Error('must not be asked');
    });
    expect(await runCertificateJob(acmeEnv, jobMessage('cert-nobody.example'), issuer.select)).toEqual({ kind: 'ack' });
    expect(issuer.requests).toHaveLength(0);
    expect(await getCertificate(env.DB, 'cert-nobody.example')).toBeNull();
  });

  it('drops messages that are not certificate jobs', async () => {
    const issuer = new ScriptedIssuer(async () => {
      throw new Error('must not be asked');
    });
    for (const body of [null, 'cert.example', { domain: 7 }, { domain: 'job-body.example', removeCustomHostname: 1 }]) {
      expect(await runCertificateJob(acmeEnv, { id: 'bad', attempts: 1, body }, issuer.select)).toEqual({ kind: 'ack' });
    }
    expect(issuer.requests).toHaveLength(0);
  });

  it('fails with a reason a user can act on when CERT_ISSUER is not a known mode', async () => {
    const domain = 'cert-misconfigured.example';
    await hostedSite(domain);
    const disposition = await runCertificateJob({ ...acmeEnv, CERT_ISSUER: 'letsencrypt' }, jobMessage(domain, 6));
    expect(disposition).toEqual({ kind: 'retry', delaySeconds: 0 });
    expect(await getCertificateSummary(env.DB, domain)).toMatchObject({
      status: 'failed',
      reason: 'CERT_ISSUER is "letsencrypt"; use acme, cloudflare or off.',
    });
  });
});

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
