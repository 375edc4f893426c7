import type { Env } from '../platform/env';
import { deleteCertificateStatements, getCertificate } from '../storage/certificates';
import type { CertificateJob } from './jobs';

/**
 * Called when a site is unpublished: forgets its certificate and challenges. A job at work on
 * the domain loses the record its lease lives in, so it writes nothing more and stops (queued
 * messages cannot be withdrawn; they find no site and end). A Cloudflare custom hostname is
 * deleted by a job, so unpublishing does not wait on Cloudflare's API.
 */
export async function forgetCertificate(env: Env, domain: string): Promise<void> {
  const stored = await getCertificate(env.DB, domain);
  await env.DB.batch(deleteCertificateStatements(env.DB, domain));
  if (stored?.externalId) {
    const job: CertificateJob = { domain, removeCustomHostname: stored.externalId };
    await env.CERTIFICATES.send(job, { contentType: 'json' });
  }
}
