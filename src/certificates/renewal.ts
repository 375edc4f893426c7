import type { Env } from '../platform/env';
import { maxBatchMessages } from '../platform/queue-limits';
import { listCertificatesDue } from '../storage/certificates';
import { certificatesOff } from './issuers';
import { type CertificateJob, renewalWindowMs } from './jobs';

/** A failed certificate is tried again this long after its last attempt (DNS may point here by now). */
const failedRetryMs = 24 * 60 * 60 * 1000;

/**
 * The Cron Trigger: queues a job for every site whose certificate expires within 30 days, whose
 * certificate failed a day ago or more, or that has none (sites published while certificates
 * were off, or whose job was lost). Jobs are idempotent, so an overlap with running jobs is
 * harmless. Returns the domains it queued.
 */
export async function queueCertificateRenewals(controller: ScheduledController, env: Env): Promise<string[]> {
  if (certificatesOff(env)) return [];
  const now = controller.scheduledTime;
  const domains = await listCertificatesDue(env.DB, now + renewalWindowMs, now - failedRetryMs, now);
  for (let start = 0; start < domains.length; start += maxBatchMessages) {
    const jobs = domains.slice(start, start + maxBatchMessages).map((domain) => ({ body: { domain } satisfies CertificateJob, contentType: 'json' as const }));
    await env.CERTIFICATES.sendBatch(jobs);
  }
  return domains;
}
