import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { IssueOutcome } from '../../src/certificates/issuer';
import { runCertificateJob } from '../../src/certificates/jobs';
import { getCertificate, getCertificateSummary } from '../../src/storage/certificates';
import { authorized, deploy } from '../support/client';
import { Subscriber } from '../events/subscriber';
import { ScriptedIssuer, acmeEnv, hostedSite, issuing, jobMessage, testCertificate } from './support';

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
    for (const body of [null, 'cert.example', { domain: 7 }, { domain: 'a.example', removeCustomHostname: 1 }]) {
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
