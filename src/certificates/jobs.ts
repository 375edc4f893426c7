import type { Env } from '../platform/env';
import { timestamp } from '../http/time';
import { log } from '../platform/log';
import { backoffSeconds } from '../platform/queue-limits';
import { settingsOf } from '../platform/settings';
import {
  claimCertificateJob,
  deleteCertificateStatements,
  getCertificate,
  recordAttemptFailed,
  recordCertificatesOff,
  recordExternalId,
  recordIssued,
  recordJobFailed,
} from '../storage/certificates';
import { getSiteOwner } from '../storage/sites-table';
import type { Issuer } from './issuer';
import { certificatesOff, issuerFor } from './issuers';
import { seal } from './keys-at-rest';

/** A message on the certificate queue: make sure `domain` has a valid certificate, or delete a Cloudflare custom hostname. */
export type CertificateJob = { domain: string } | { domain: string; removeCustomHostname: string };

/** What the queue should do with a message after its attempt. */
export type JobDisposition = { kind: 'ack' } | { kind: 'retry'; delaySeconds: number };

/** The message fields the runner uses (a queue `Message`, or a test's). */
export interface JobMessage {
  id: string;
  attempts: number;
  body: unknown;
}

const day = 24 * 60 * 60 * 1000;
/** Certificates are renewed this long before they expire. */
export const renewalWindowMs = 30 * day;
/** A consumer invocation may run 15 minutes; a job holds its domain that long past each start or retry. */
const leaseMs = 15 * 60 * 1000;

const ack: JobDisposition = { kind: 'ack' };

function parseCertificateJob(body: unknown): CertificateJob | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { domain, removeCustomHostname } = body as Record<string, unknown>;
  if (typeof domain !== 'string') return undefined;
  if (removeCustomHostname === undefined) return { domain };
  return typeof removeCustomHostname === 'string' ? { domain, removeCustomHostname } : undefined;
}

/** Exponential backoff: base, 2×base, 4×base… capped at Queues' maximum delay. */
export function retryDelaySeconds(env: Env, attempts: number): number {
  return backoffSeconds(settingsOf(env).certRetryBaseSeconds, attempts);
}

/**
 * Runs one job. Idempotent: a domain whose certificate is issued and not due for renewal is
 * left alone, and only the job holding the domain's lease works on it, so a message delivered
 * twice, or two messages for one domain, issue one certificate. `selectIssuer` is injectable
 * for tests; it defaults to the issuer `CERT_ISSUER` names.
 */
export async function runCertificateJob(
  env: Env,
  message: JobMessage,
  selectIssuer: (env: Env, name?: Issuer['name']) => Issuer = issuerFor,
): Promise<JobDisposition> {
  const job = parseCertificateJob(message.body);
  if (!job) {
    log.error('Dropped a message that is not a certificate job', { body: message.body });
    return ack;
  }
  if ('removeCustomHostname' in job) {
    return removeCustomHostname(env, job.domain, job.removeCustomHostname, message.attempts, () => selectIssuer(env, 'cloudflare'));
  }

  const { DB } = env;
  const { domain } = job;
  const now = Date.now();
  if (certificatesOff(env)) {
    // A job that outlived its site's unpublish records nothing.
    if ((await getSiteOwner(DB, domain)) !== null) await recordCertificatesOff(DB, domain, now);
    return ack;
  }
  const stored = await getCertificate(DB, domain);
  if (stored?.status === 'issued' && stored.expires !== null && stored.expires - now > renewalWindowMs) return ack;
  const claimed = await claimCertificateJob(DB, domain, message.id, now, now + leaseMs);
  if (!claimed) return ack;
  // Checked after claiming: an unpublish after this point deletes the claimed record and so stops the job.
  if ((await getSiteOwner(DB, domain)) === null) {
    await DB.batch(deleteCertificateStatements(DB, domain));
    return ack;
  }

  try {
    const issuer = selectIssuer(env);
    const outcome = await issuer.issue({
      domain,
      externalId: claimed.externalId,
      rememberExternalId: (externalId) => recordExternalId(DB, domain, message.id, externalId),
    });
    if (outcome.kind === 'waiting') return attemptFailed(env, domain, message, outcome.detail);
    const encryptedKey = outcome.keyPem === null ? null : await seal(env.CERT_ENCRYPTION_KEY, domain, outcome.keyPem);
    if (await recordIssued(DB, domain, message.id, { ...outcome, issuer: issuer.name, encryptedKey }, Date.now())) {
      await env.NOTIFICATIONS.send(
        { type: 'certificate-issue', domain, issued: timestamp(outcome.issued), expires: timestamp(outcome.expires) },
        { contentType: 'json' },
      );
    }
    return ack;
  } catch (error) {
    return attemptFailed(env, domain, message, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Keeps the reason and retries with backoff; the attempt after `CERT_JOB_MAX_RETRIES` retries
 * marks the certificate failed, sends `certificate-fail` and is retried once more, which moves it
 * to the dead-letter queue. A cancelled job (unpublished site) is dropped.
 */
async function attemptFailed(env: Env, domain: string, message: JobMessage, reason: string): Promise<JobDisposition> {
  const now = Date.now();
  log.warn('Certificate job attempt failed', { certificateJob: message.id, domain, attempt: message.attempts, reason });
  if (message.attempts > settingsOf(env).certJobMaxRetries) {
    const failed = await recordJobFailed(env.DB, domain, message.id, reason, now);
    if (!failed) return ack;
    await env.NOTIFICATIONS.send({ type: 'certificate-fail', domain, reason }, { contentType: 'json' });
    return { kind: 'retry', delaySeconds: 0 };
  }
  const delaySeconds = retryDelaySeconds(env, message.attempts);
  const held = await recordAttemptFailed(env.DB, domain, message.id, reason, now, now + delaySeconds * 1000 + leaseMs);
  return held ? { kind: 'retry', delaySeconds } : ack;
}

/** After an unpublish: deletes the custom hostname, unless the domain was published again and uses it. */
async function removeCustomHostname(
  env: Env,
  domain: string,
  externalId: string,
  attempts: number,
  cloudflare: () => Issuer,
): Promise<JobDisposition> {
  const current = await getCertificate(env.DB, domain);
  if (current?.externalId === externalId) return ack;
  try {
    await cloudflare().remove(domain, externalId);
    return ack;
  } catch (error) {
    log.warn('Removing a custom hostname failed', { removeCustomHostname: externalId, domain, error });
    return { kind: 'retry', delaySeconds: retryDelaySeconds(env, attempts) };
  }
}

/** The certificate queue's consumer: every message of the batch runs concurrently. */
export async function consumeCertificateJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const disposition = await runCertificateJob(env, message).catch((error: unknown): JobDisposition => {
        // D1 or the queue failed underneath the job: try the message again later.
        log.error('Certificate job failed', { certificateJob: message.id, error });
        return { kind: 'retry', delaySeconds: retryDelaySeconds(env, message.attempts) };
      });
      if (disposition.kind === 'ack') message.ack();
      else message.retry({ delaySeconds: disposition.delaySeconds });
    }),
  );
}
