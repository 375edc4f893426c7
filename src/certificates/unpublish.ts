import type { Env } from '../platform/env';
import { deleteCertificateStatements, getCertificate } from '../storage/certificates';
import type { CertificateJob } from './jobs';

/** The Cloudflare custom hostname of `domain`'s certificate, if any: what forgetting it must remove. */
export async function customHostnameOf(env: Env, domain: string): Promise<string | null> {
  return (await getCertificate(env.DB, domain))?.externalId ?? null;
}

/**
 * Called when a site is unpublished: forgets its certificate and challenges (unless `keepRow`:
 * the domain was claimed again, and the row is the new site's), and queues the removal of its
 * custom hostname `customHostname`, which the caller read with `customHostnameOf` and kept before
 * the first attempt: a retry after the row is gone still removes it. A job at work on the domain
 * loses the record its lease lives in, so it writes nothing more and stops (queued messages cannot
 * be withdrawn; they find no site and end). The custom hostname is deleted by a job, so
 * unpublishing does not wait on Cloudflare's API; the job keeps one the domain uses again.
 */
export async function forgetCertificate(env: Env, domain: string, customHostname: string | null, keepRow = false): Promise<void> {
  if (!keepRow) await env.DB.batch(deleteCertificateStatements(env.DB, domain));
  if (customHostname !== null) {
    const job: CertificateJob = { domain, removeCustomHostname: customHostname };
    await env.CERTIFICATES.send(job, { contentType: 'json' });
  }
}
