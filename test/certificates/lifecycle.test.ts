import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { IssueOutcome } from '../../src/certificates/issuer';
import { open, seal } from '../../src/certificates/keys-at-rest';
import { runCertificateJob } from '../../src/certificates/jobs';
import { queueCertificateRenewals } from '../../src/certificates/renewal';
import { claimCertificateJob, getCertificate, recordJobFailed } from '../../src/storage/certificates';
import { authorized } from '../support/client';
import { ScriptedIssuer, acmeEnv, day, hostedSite, issuing, jobMessage, testCertificate } from './support';

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
    const sealed = await seal('secret-one', 'a.example', 'key material');
    expect(await open('secret-one', 'a.example', sealed)).toBe('key material');
    await expect(open('secret-two', 'a.example', sealed)).rejects.toThrow();
    await expect(open('secret-one', 'b.example', sealed)).rejects.toThrow();
    await expect(seal(undefined, 'a.example', 'key material')).rejects.toThrow('CERT_ENCRYPTION_KEY is not set');
  });
});
