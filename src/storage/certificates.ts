// One file over 250 lines: every statement on the certificates table checks the same job lease (job_id, lease_until), which must be read side by side.
/** D1 access to certificates, their jobs' leases, ACME challenges and ACME accounts. Times are epoch ms. */
import { timestamp } from '../http/time';
import type { CertificateStatus, CertificateSummary } from '../common/api-types';

export interface CertificateRecord {
  domain: string;
  status: CertificateStatus;
  reason: string | null;
  updated: number;
  issued: number | null;
  expires: number | null;
  issuer: string | null;
  chain: string | null;
  encryptedKey: Uint8Array | null;
  externalId: string | null;
  jobId: string | null;
  leaseUntil: number;
  attempts: number;
}

/** A row as D1 returns it: the record's fields, those of several words in snake_case. */
interface CertificateRow extends Omit<CertificateRecord, 'encryptedKey' | 'externalId' | 'jobId' | 'leaseUntil'> {
  /** D1 returns BLOBs as an ArrayBuffer or an array of byte values. */
  encrypted_key: ArrayBuffer | number[] | null;
  external_id: string | null;
  job_id: string | null;
  lease_until: number;
}

function toRecord(row: CertificateRow): CertificateRecord {
  return {
    domain: row.domain,
    status: row.status,
    reason: row.reason,
    updated: row.updated,
    issued: row.issued,
    expires: row.expires,
    issuer: row.issuer,
    chain: row.chain,
    encryptedKey: row.encrypted_key === null ? null : new Uint8Array(row.encrypted_key),
    externalId: row.external_id,
    jobId: row.job_id,
    leaseUntil: row.lease_until,
    attempts: row.attempts,
  };
}

export async function getCertificate(db: D1Database, domain: string): Promise<CertificateRecord | null> {
  const row = await db.prepare('SELECT * FROM certificates WHERE domain = ?').bind(domain).first<CertificateRow>();
  return row ? toRecord(row) : null;
}

/**
 * The certificate of a site for its info. Pass `env.CERT_ISSUER` as `issuer`: with `off`, the
 * status is `off` whatever is stored. A site whose job has not run yet is `pending`.
 */
export async function getCertificateSummary(db: D1Database, domain: string, issuer?: string): Promise<CertificateSummary> {
  if (issuer === 'off') return { status: 'off', issued: null, expires: null };
  const record = await getCertificate(db, domain);
  if (!record) return { status: 'pending', issued: null, expires: null };
  return {
    status: record.status,
    issued: record.issued === null ? null : timestamp(record.issued),
    expires: record.expires === null ? null : timestamp(record.expires),
    ...(record.reason === null ? {} : { reason: record.reason }),
  };
}

/** Records that certificates are off for the domain, unless a real one is stored. */
export async function recordCertificatesOff(db: D1Database, domain: string, now: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO certificates (domain, status, updated) VALUES (?1, 'off', ?2)
       ON CONFLICT (domain) DO UPDATE SET status = 'off', reason = NULL, updated = ?2 WHERE certificates.status <> 'issued'`,
    )
    .bind(domain, now)
    .run();
}

/**
 * Takes the lease on the domain's certificate for job `jobId` until `leaseUntil`: creates the
 * record (`pending`) or marks a stored one in progress. Null when another job holds a live lease.
 * An issued certificate stays `issued` while it is being renewed.
 */
export async function claimCertificateJob(
  db: D1Database,
  domain: string,
  jobId: string,
  now: number,
  leaseUntil: number,
): Promise<CertificateRecord | null> {
  const row = await db
    .prepare(
      `INSERT INTO certificates (domain, status, updated, job_id, lease_until, attempts)
       VALUES (?1, 'pending', ?2, ?3, ?4, 1)
       ON CONFLICT (domain) DO UPDATE SET
         status = CASE WHEN certificates.status = 'issued' THEN 'issued' ELSE 'pending' END,
         updated = ?2, job_id = ?3, lease_until = ?4,
         attempts = CASE WHEN certificates.job_id = ?3 THEN certificates.attempts + 1 ELSE 1 END
       WHERE certificates.job_id IS NULL OR certificates.job_id = ?3 OR certificates.lease_until <= ?2
       RETURNING *`,
    )
    .bind(domain, now, jobId, leaseUntil)
    .first<CertificateRow>();
  return row ? toRecord(row) : null;
}

/** After a failed attempt: the reason, and the lease kept until the retry is due. False when the job was cancelled. */
export async function recordAttemptFailed(
  db: D1Database,
  domain: string,
  jobId: string,
  reason: string,
  now: number,
  leaseUntil: number,
): Promise<boolean> {
  const result = await db
    .prepare('UPDATE certificates SET reason = ?3, updated = ?4, lease_until = ?5 WHERE domain = ?1 AND job_id = ?2')
    .bind(domain, jobId, reason, now, leaseUntil)
    .run();
  return result.meta.changes > 0;
}

/** Remembers an issuer's handle (a Cloudflare custom hostname id) across attempts. */
export async function recordExternalId(db: D1Database, domain: string, jobId: string, externalId: string): Promise<void> {
  await db
    .prepare('UPDATE certificates SET external_id = ?3 WHERE domain = ?1 AND job_id = ?2')
    .bind(domain, jobId, externalId)
    .run();
}

export interface IssuedCertificate {
  issuer: string;
  issued: number;
  expires: number;
  /** Null when the issuer keeps the certificate (Cloudflare). */
  chain: string | null;
  encryptedKey: Uint8Array | null;
  externalId: string | null;
}

/** Stores the job's certificate and ends its lease. False when the job was cancelled meanwhile. */
export async function recordIssued(
  db: D1Database,
  domain: string,
  jobId: string,
  certificate: IssuedCertificate,
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE certificates SET status = 'issued', reason = NULL, updated = ?3, issuer = ?4, issued = ?5, expires = ?6,
         chain = ?7, encrypted_key = ?8, external_id = ?9, job_id = NULL, lease_until = 0, attempts = 0
       WHERE domain = ?1 AND job_id = ?2`,
    )
    .bind(
      domain,
      jobId,
      now,
      certificate.issuer,
      certificate.issued,
      certificate.expires,
      certificate.chain,
      certificate.encryptedKey,
      certificate.externalId,
    )
    .run();
  return result.meta.changes > 0;
}

/**
 * The job `jobId` failed its last attempt: `failed` with the reason (a
 * certificate still valid stays `issued`, the reason tells why its renewal failed). Returns the
 * updated record, or null when the job no longer holds the certificate (cancelled or superseded).
 */
export async function recordJobFailed(
  db: D1Database,
  domain: string,
  jobId: string,
  reason: string,
  now: number,
): Promise<CertificateRecord | null> {
  const row = await db
    .prepare(
      `UPDATE certificates SET
         status = CASE WHEN status = 'issued' AND expires > ?4 THEN 'issued' ELSE 'failed' END,
         reason = ?3, updated = ?4, job_id = NULL, lease_until = 0
       WHERE domain = ?1 AND job_id = ?2
       RETURNING *`,
    )
    .bind(domain, jobId, reason, now)
    .first<CertificateRow>();
  return row ? toRecord(row) : null;
}

/** Statements that forget the domain's certificate and challenges: the row a job needs is gone, so the job stops. */
export function deleteCertificateStatements(db: D1Database, domain: string): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM certificates WHERE domain = ?').bind(domain),
    db.prepare('DELETE FROM acme_challenges WHERE domain = ?').bind(domain),
  ];
}

/**
 * Hosted domains whose certificate needs a job: issued ones expiring before `renewBefore`,
 * failed ones last tried before `retryFailedBefore`, pending ones no job holds any more, and
 * those without a certificate (none yet, or `off` from before certificates were turned on).
 * At most `limit` (in domain order), those without a certificate first, then the least lately
 * tried: a run's work is bounded, and what is left over comes first at the next run.
 */
export async function listCertificatesDue(
  db: D1Database,
  renewBefore: number,
  retryFailedBefore: number,
  now: number,
  limit = 10_000,
): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT domain FROM (
         SELECT sites.domain FROM sites LEFT JOIN certificates ON certificates.domain = sites.domain
         WHERE certificates.domain IS NULL OR certificates.status = 'off'
           OR (certificates.status = 'issued' AND certificates.expires < ?1)
           OR (certificates.status = 'failed' AND certificates.updated < ?2)
           OR (certificates.status = 'pending' AND certificates.lease_until < ?3)
         ORDER BY coalesce(certificates.updated, 0), sites.domain LIMIT ?4)
       ORDER BY domain`,
    )
    .bind(renewBefore, retryFailedBefore, now, limit)
    .all<{ domain: string }>();
  return results.map((row) => row.domain);
}

export function putChallenge(db: D1Database, domain: string, token: string, keyAuthorization: string, now: number) {
  return db
    .prepare(
      `INSERT INTO acme_challenges (token, domain, key_authorization, created) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (token) DO UPDATE SET domain = ?2, key_authorization = ?3, created = ?4`,
    )
    .bind(token, domain, keyAuthorization, now)
    .run();
}

export function getChallengeAnswer(db: D1Database, domain: string, token: string): Promise<string | null> {
  return db
    .prepare('SELECT key_authorization FROM acme_challenges WHERE token = ? AND domain = ?')
    .bind(token, domain)
    .first<string>('key_authorization');
}

export function deleteChallenge(db: D1Database, token: string) {
  return db.prepare('DELETE FROM acme_challenges WHERE token = ?').bind(token).run();
}

export interface AcmeAccountRecord {
  accountUrl: string;
  encryptedKey: Uint8Array;
}

export async function getAcmeAccount(db: D1Database, directoryUrl: string): Promise<AcmeAccountRecord | null> {
  const row = await db
    .prepare('SELECT account_url, encrypted_key FROM acme_accounts WHERE directory_url = ?')
    .bind(directoryUrl)
    .first<{ account_url: string; encrypted_key: ArrayBuffer | number[] }>();
  return row ? { accountUrl: row.account_url, encryptedKey: new Uint8Array(row.encrypted_key) } : null;
}

export async function putAcmeAccount(
  db: D1Database,
  directoryUrl: string,
  account: AcmeAccountRecord,
  now: number,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO acme_accounts (directory_url, account_url, encrypted_key, created) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (directory_url) DO UPDATE SET account_url = ?2, encrypted_key = ?3`,
    )
    .bind(directoryUrl, account.accountUrl, account.encryptedKey, now)
    .run();
}
