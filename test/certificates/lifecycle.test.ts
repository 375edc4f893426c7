/// <reference types="vite/client" />
/**
 * A certificate's life as a user meets it: the HTTP-01 answers on a site's host, the certificate
 * endpoint, keys at rest, unpublishing and renewal. Each test has domains of its own.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { IssueOutcome } from '../../src/certificates/issuer';
import { runCertificateJob } from '../../src/certificates/jobs';
import { open, seal } from '../../src/certificates/keys-at-rest';
import { queueCertificateRenewals } from '../../src/certificates/renewal';
import { claimCertificateJob, getCertificate, putChallenge, recordJobFailed } from '../../src/storage/certificates';
import { authorized, call, problemOf } from '../support/client';
import { ScriptedIssuer, acmeEnv, day, hostedSite, issuing, jobMessage, testCertificate } from './support';
import wranglerToml from '../../wrangler.toml?raw';

describe('HTTP-01 answers on site hosts', () => {
  it("answers a token in progress with its key authorization, on that domain's host only", async () => {
    await putChallenge(env.DB, 'challenge.example', 'tok_en-1', 'tok_en-1.thumbprint', Date.now());
    const answer = await call('http://challenge.example/.well-known/acme-challenge/tok_en-1');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await answer.text()).toBe('tok_en-1.thumbprint');
    // Locally, <domain>.localhost is the same site.
    expect(await (await call('http://challenge.example.localhost/.well-known/acme-challenge/tok_en-1')).text()).toBe('tok_en-1.thumbprint');

    const otherHost = await call('http://challenge-other.example/.well-known/acme-challenge/tok_en-1');
    expect(otherHost.status).toBe(404);
    expect(await otherHost.text()).not.toContain('thumbprint');
    expect((await call('http://challenge.example/.well-known/acme-challenge/unknown')).status).toBe(404);
  });
});

describe('the certificate queue settings', () => {
  it('CERT_JOB_MAX_RETRIES equals the consumer max_retries, so the last attempt is the one marked failed', () => {
    const consumer = /\[\[queues\.consumers\]\]\s*\nqueue = "sitehost-certificates"\n(?:[^[]*\n)*?max_retries = (\d+)/.exec(wranglerToml);
    expect(consumer?.[1]).toBe(env.CERT_JOB_MAX_RETRIES);
    expect(wranglerToml).toMatch(/queue = "sitehost-certificates"[^[]*dead_letter_queue = "sitehost-certificates-dlq"/);
  });
});

const path = (domain: string) => `/v2/sites/${domain}/certificate`;

describe('GET /v2/sites/<domain>/certificate', () => {
  it('answers with the PEM certificate, intermediates and key once issued, and 404 before', async () => {
    const domain = 'endpoint-issued.example';
    await hostedSite(domain);
    const before = await authorized(path(domain), {}, { scope: 'global_read' });
    expect(before.status).toBe(404);
    expect((await problemOf(before)).detail).toBe(`${domain} has no certificate yet (pending).`);

    const certificate = await testCertificate(domain);
    await runCertificateJob(acmeEnv, jobMessage(domain), new ScriptedIssuer(issuing(certificate)).select);
    const response = await authorized(path(domain), {}, { scope: 'global_read' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      domain,
      cert: certificate.leafPem,
      key: certificate.keyPem,
      ca: certificate.caPem,
      expires: new Date(certificate.notAfter).toISOString().slice(0, 23),
    });
  });

  it('needs global_read: 401 without a token, 403 with deploy alone, even for the owner', async () => {
    const domain = 'endpoint-scopes.example';
    await hostedSite(domain, 'github|1');
    const anonymous = await call(path(domain));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const owner = await authorized(path(domain), {}, { user: 'github|1', scope: 'deploy' });
    expect(owner.status).toBe(403);
    expect(owner.headers.get('www-authenticate')).toContain('scope="global_read"');
  });

  it('answers 404 for a site that is not hosted, 400 for an invalid domain, 405 for other methods', async () => {
    const missing = await authorized(path('endpoint-nobody.example'), {}, { scope: 'global_read' });
    expect(missing.status).toBe(404);
    expect((await problemOf(missing)).type).toBe('/problems/site-not-found');
    expect((await authorized(path('127.0.0.1'), {}, { scope: 'global_read' })).status).toBe(400);
    const put = await authorized(path('endpoint-nobody.example'), { method: 'PUT' }, { scope: 'global_read' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('private keys at rest', () => {
  it('are stored encrypted: the stored row holds no PEM key and no key bytes', async () => {
    const domain = 'at-rest.example';
    await hostedSite(domain);
    const certificate = await testCertificate(domain);
    await runCertificateJob(acmeEnv, jobMessage(domain), new ScriptedIssuer(issuing(certificate)).select);

    const row = await env.DB.prepare('SELECT * FROM certificates WHERE domain = ?').bind(domain).first<Record<string, unknown>>();
    const stored = new Uint8Array(row!.encrypted_key as ArrayBuffer | number[]);
    const storedText = new TextDecoder('latin1').decode(stored);
    const keyBase64 = certificate.keyPem.split('\n').filter((line) => line && !line.startsWith('-----')).join('');
    const keyDer = Uint8Array.from(atob(keyBase64), (char) => char.charCodeAt(0));
    const everyColumn = JSON.stringify(row);

    expect(stored.length).toBeGreaterThan(keyDer.length);
    for (const text of [storedText, everyColumn]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(keyBase64.slice(40, 80));
    }
    // Not even the key's DER bytes appear in the stored value.
    const window = new TextDecoder('latin1').decode(keyDer.subarray(30, 60));
    expect(storedText).not.toContain(window);
  });
});

describe('unpublishing a site', () => {
  it('removes its certificate', async () => {
    const domain = 'unpublish-issued.example';
    await hostedSite(domain);
    await runCertificateJob(acmeEnv, jobMessage(domain), new ScriptedIssuer(issuing(await testCertificate(domain))).select);
    expect((await getCertificate(env.DB, domain))?.status).toBe('issued');

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await getCertificate(env.DB, domain)).toBeNull();
    expect((await authorized(`/v2/sites/${domain}/certificate`, {}, { scope: 'global_read' })).status).toBe(404);
  });

  it('cancels a job at work: it stores nothing and sends no event', async () => {
    const domain = 'unpublish-pending.example';
    await hostedSite(domain);
    const certificate = await testCertificate(domain);
    const issuer = new ScriptedIssuer(async (request) => {
      expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
      return issuing(certificate)(request);
    });
    expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });
    expect(issuer.requests).toHaveLength(1);
    expect(await getCertificate(env.DB, domain)).toBeNull();
  });

  it('drops a failing job instead of retrying it', async () => {
    const domain = 'unpublish-retrying.example';
    await hostedSite(domain);
    const issuer = new ScriptedIssuer(async () => {
      await authorized(`/v2/sites/${domain}`, { method: 'DELETE' });
      throw new Error('validation failed');
    });
    expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });
    expect(await getCertificate(env.DB, domain)).toBeNull();
  });
});

describe('renewal (the Cron Trigger)', () => {
  async function issuedFor(domain: string, validDays: number): Promise<void> {
    await hostedSite(domain);
    await runCertificateJob(acmeEnv, jobMessage(domain), new ScriptedIssuer(issuing(await testCertificate(domain, validDays))).select);
  }

  it('queues certificates within 30 days of expiry, failed ones a day later, and sites without one', async () => {
    await issuedFor('renew-due.example', 20);
    await issuedFor('renew-fresh.example', 60);
    await hostedSite('renew-none.example');
    await hostedSite('renew-failed.example');
    await claimCertificateJob(env.DB, 'renew-failed.example', 'job', Date.now(), Date.now() + 1000);
    await recordJobFailed(env.DB, 'renew-failed.example', 'job', 'refused', Date.now());

    const today = await queueCertificateRenewals(createScheduledController({ scheduledTime: Date.now() }), acmeEnv);
    const ours = (domains: string[]) => domains.filter((domain) => domain.startsWith('renew-'));
    expect(ours(today)).toEqual(['renew-due.example', 'renew-none.example']);
    // Two days on, the failed certificate is tried again; 31 days on, the fresh one is due too.
    const later = await queueCertificateRenewals(createScheduledController({ scheduledTime: Date.now() + 31 * day }), acmeEnv);
    expect(ours(later)).toEqual(['renew-due.example', 'renew-failed.example', 'renew-fresh.example', 'renew-none.example']);
    expect(await queueCertificateRenewals(createScheduledController(), env)).toEqual([]);
  });

  it('a queued renewal replaces a certificate due for renewal; a fresh one is left alone', async () => {
    const domain = 'renew-replace.example';
    await issuedFor(domain, 10);
    const before = await getCertificate(env.DB, domain);
    const renewed = await testCertificate(domain, 90);
    const issuer = new ScriptedIssuer(issuing(renewed));
    expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });
    const after = await getCertificate(env.DB, domain);
    expect(after?.expires).toBe(renewed.notAfter);
    expect(after!.expires!).toBeGreaterThan(before!.expires!);
    expect(after?.chain).toBe(renewed.chain);

    expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });
    expect(issuer.requests).toHaveLength(1);
  });

  it('a renewal that fails keeps the valid certificate issued, with the reason', async () => {
    const domain = 'renew-failing.example';
    await issuedFor(domain, 10);
    const failing: () => Promise<IssueOutcome> = async () => {
      throw new Error('rate limited');
    };
    const disposition = await runCertificateJob(acmeEnv, jobMessage(domain, 6), new ScriptedIssuer(failing).select);
    expect(disposition).toEqual({ kind: 'retry', delaySeconds: 0 });
    expect(await getCertificate(env.DB, domain)).toMatchObject({ status: 'issued', reason: 'rate limited' });
    expect((await authorized(`/v2/sites/${domain}/certificate`, {}, { scope: 'global_read' })).status).toBe(200);
  });
});

describe('sealed keys', () => {
  it('open only with the same secret and context', async () => {
    const sealed = await seal('secret-one', 'sealed.example', 'key material');
    expect(await open('secret-one', 'sealed.example', sealed)).toBe('key material');
    await expect(open('secret-two', 'sealed.example', sealed)).rejects.toThrow();
    await expect(open('secret-one', 'b.example', sealed)).rejects.toThrow();
    await expect(seal(undefined, 'sealed.example', 'key material')).rejects.toThrow('CERT_ENCRYPTION_KEY is not set');
  });
});
