import * as x509 from '../../src/certificates/x509';
import { env } from 'cloudflare:workers';
import { generateDomainKey } from '../../src/certificates/certificate-material';
import type { IssueOutcome, IssueRequest, Issuer } from '../../src/certificates/issuer';
import type { JobMessage } from '../../src/certificates/jobs';
import type { Env } from '../../src/platform/env';
import { emptySite, upsertSite } from '../../src/storage/sites-table';

export const day = 24 * 60 * 60 * 1000;

/** The Worker's environment with certificates on: jobs run against the issuer a test passes. */
export const acmeEnv: Env = { ...env, CERT_ISSUER: 'acme' };

/** A hosted site, written to D1 directly so that no certificate job of the deploy flow races the test's own. */
export async function hostedSite(domain: string, userId = 'github|1'): Promise<void> {
  await upsertSite(env.DB, emptySite(domain, userId, Date.now())).run();
}

let messageCounter = 0;

export function jobMessage(domain: string, attempts = 1, id = `message-${++messageCounter}`): JobMessage {
  return { id, attempts, body: { domain } };
}

export interface TestCertificate {
  chain: string;
  keyPem: string;
  leafPem: string;
  caPem: string;
  notBefore: number;
  notAfter: number;
}

/** A real chain (leaf signed by a throwaway CA) valid from now for `validDays`. */
export async function testCertificate(domain: string, validDays = 90): Promise<TestCertificate> {
  const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' };
  const caKey = await generateDomainKey();
  const leafKey = await generateDomainKey();
  const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
  const notAfter = new Date(notBefore.getTime() + validDays * day);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    { serialNumber: '01', name: 'CN=Test CA', notBefore, notAfter, keys: caKey.keys, signingAlgorithm },
    crypto,
  );
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: '02',
      subject: `CN=${domain}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: leafKey.keys.publicKey,
      signingKey: caKey.keys.privateKey,
      signingAlgorithm,
    },
    crypto,
  );
  const leafPem = `${leaf.toString('pem')}\n`;
  const caPem = `${ca.toString('pem')}\n`;
  return { chain: leafPem + caPem, keyPem: leafKey.pem, leafPem, caPem, notBefore: notBefore.getTime(), notAfter: notAfter.getTime() };
}

/**
 * A certificate authority for the job runner's tests: an Issuer whose answer each test scripts
 * (a certificate, a refusal, a wait). It counts its calls, which is what idempotency is about.
 */
export class ScriptedIssuer implements Issuer {
  readonly name = 'acme';
  readonly requests: IssueRequest[] = [];

  constructor(private readonly answer: (request: IssueRequest) => Promise<IssueOutcome>) {}

  issue(request: IssueRequest): Promise<IssueOutcome> {
    this.requests.push(request);
    return this.answer(request);
  }

  async remove(): Promise<void> {}

  /** The issuer for `runCertificateJob`'s `selectIssuer`. */
  get select(): () => Issuer {
    return () => this;
  }
}

export function issuing(certificate: TestCertificate): (request: IssueRequest) => Promise<IssueOutcome> {
  return async () => ({
    kind: 'issued',
    issued: certificate.notBefore,
    expires: certificate.notAfter,
    chain: certificate.chain,
    keyPem: certificate.keyPem,
    externalId: null,
  });
}
