import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as x509 from '../../src/certificates/x509';
import { type TestProcess, startProcess, waitFor } from './support/processes';
import { startChallengeServer } from './support/challenge-server';
import { type Service, freePort, runCron, startService, token } from './support/service';

/**
 * CERT_ISSUER=acme end to end against Pebble (Debian's `pebble`), as docs/certificates.md tells
 * a user to run it: `npm start` with the ACME variables, Pebble's HTTPS trusted through
 * NODE_EXTRA_CA_CERTS. pebble-challtestsrv is Pebble's DNS: every name resolves to 127.0.0.1, so
 * Pebble's validation authority fetches the HTTP-01 answer from the running Worker (Pebble's
 * `httpPort` is the Worker's port). One domain is pointed at 127.0.0.2, where nothing listens:
 * Pebble refuses that challenge on every attempt and the job ends failed with Pebble's reason.
 */

const repo = new URL('../..', import.meta.url).pathname;
/** Debian's binary, or PEBBLE_PATH's (with `pebble-challtestsrv` beside it: ./support/challenge-server.ts). */
const pebbleBinary = process.env.PEBBLE_PATH ?? 'pebble';
const issuedDomain = 'issued.sitehost.test';
const refusedDomain = 'refused.sitehost.test';
const reissuedDomain = 'reissued.sitehost.test';

let workDir: string;
let service: Service;
let managementPort: number;
let pebbleCa: string;
/** Pebble's DNS, Pebble and the service, in start order: a wait fails as soon as one has exited. */
const processes: TestProcess[] = [];
let pebble: TestProcess;
/** Starts Pebble, which keeps everything in memory: a new one knows no account. */
let startPebble: () => Promise<TestProcess>;

/** A CA and a certificate for 127.0.0.1 signed by it, for Pebble's own HTTPS listener. */
async function pebbleTls(): Promise<{ ca: string; cert: string; key: string }> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const generate = () => crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
  const [caKeys, leafKeys] = await Promise.all([generate(), generate()]);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 86_400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Sitehost test Pebble CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=127.0.0.1',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }, { type: 'dns', value: 'localhost' }])],
  });
  const key = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');
  return { ca: ca.toString('pem'), cert: leaf.toString('pem'), key };
}

/** GET on Pebble's management API, trusting the CA made for it. */
function pebbleManagement(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`https://127.0.0.1:${managementPort}${path}`, { ca: pebbleCa }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
    }).on('error', reject);
  });
}

async function api(path: string, scope: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${await token(service, 'github|1', scope)}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

async function deploySite(domain: string): Promise<void> {
  const form = new FormData();
  form.append('directory', new File(['<h1>Hello</h1>'], 'index.html', { type: 'text/html' }));
  const response = await api(`/v2/sites/${domain}`, 'deploy', { method: 'PUT', body: form });
  expect(response.status).toBe(200);
}

interface CertificateBody {
  domain: string;
  cert: string;
  key: string;
  ca: string;
  expires: string;
}

/** The domain's certificate from the certificate endpoint, once its job has issued it. */
async function issuedCertificate(domain: string): Promise<CertificateBody> {
  let response: Response | undefined;
  await waitFor(async () => {
    response = await api(`/v2/sites/${domain}/certificate`, 'global_read');
    return response.status === 200;
  }, `the certificate of ${domain}`, 90_000, processes);
  return (await response!.json()) as CertificateBody;
}

/** The certificate rows, read from the local D1 the running Worker uses. */
/** The certificate's state as the site's owner reads it (`GET .../info`). */
async function certificateRow(domain: string): Promise<{ status: string; reason: string | null } | undefined> {
  const response = await api(`/v2/sites/${domain}/info`, 'deploy');
  if (!response.ok) return undefined;
  const { certificate } = (await response.json()) as { certificate: { status: string; reason?: string } };
  return { status: certificate.status, reason: certificate.reason ?? null };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'sitehost-pebble-'));
  const [acmePort, tlsPort] = await Promise.all([freePort(), freePort()]);
  // Pebble's configuration names the service's port, so it is chosen here rather than by startService.
  const workerPort = await freePort();
  managementPort = await freePort();

  const tls = await pebbleTls();
  pebbleCa = tls.ca;
  const caFile = join(workDir, 'ca.pem');
  await writeFile(caFile, tls.ca);
  await writeFile(join(workDir, 'cert.pem'), tls.cert);
  await writeFile(join(workDir, 'key.pem'), tls.key);
  await writeFile(
    join(workDir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: join(workDir, 'cert.pem'),
        privateKey: join(workDir, 'key.pem'),
        httpPort: workerPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        // A week: inside the 30-day renewal window from the start, so the Cron Trigger renews it.
        certificateValidityPeriod: 7 * 24 * 60 * 60,
      },
    }),
  );

  const challengeServer = await startChallengeServer();
  processes.push(challengeServer);
  const { dnsPort } = challengeServer;
  await challengeServer.manage('/add-a', { host: refusedDomain, addresses: ['127.0.0.2'] });

  startPebble = async () => {
    // Pebble rejects some valid nonces on purpose (PEBBLE_WFE_NONCEREJECT): the client must retry badNonce.
    const pebble = startProcess('pebble', pebbleBinary, ['-config', join(workDir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], {
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_VA_ALWAYS_VALID: '0',
      PEBBLE_WFE_NONCEREJECT: '20',
    });
    processes.push(pebble);
    await waitFor(() => pebble.output().includes('Listening on'), 'pebble', 20_000, processes);
    return pebble;
  };
  pebble = await startPebble();

  service = await startService({
    port: workerPort,
    vars: {
      CERT_ISSUER: 'acme',
      ACME_DIRECTORY_URL: `https://127.0.0.1:${acmePort}/dir`,
      CERT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // Failed attempts are retried at once (a test-only setting, refused on a public service): the
      // refused domain's six attempts then take a few seconds rather than 1 + 2 + 4 + 8 + 16 s of backoff.
      CERT_RETRY_BASE_SECONDS: '0',
    },
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });
  processes.push(service);
}, 150_000);

afterAll(async () => {
  for (const running of processes.reverse()) await running.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('CERT_ISSUER=acme against Pebble', () => {
  it('issues a certificate after Pebble validated the HTTP-01 challenge against the Worker', async () => {
    await deploySite(issuedDomain);
    expect((await api(`/v2/sites/${issuedDomain}/certificate`, 'global_read')).status).toBe(404);

    const body = await issuedCertificate(issuedDomain);
    expect(body.domain).toBe(issuedDomain);

    const leaf = new X509Certificate(body.cert);
    expect(leaf.subjectAltName).toBe(`DNS:${issuedDomain}`);
    expect(leaf.checkPrivateKey(createPrivateKey(body.key))).toBe(true);
    expect(body.expires).toBe(new Date(leaf.validTo).toISOString().slice(0, 23));
    // `ca` is this Pebble's intermediate, and it signed the leaf.
    const intermediate = new X509Certificate(await pebbleManagement('/intermediates/0'));
    expect(new X509Certificate(body.ca).fingerprint256).toBe(intermediate.fingerprint256);
    expect(leaf.verify(intermediate.publicKey)).toBe(true);
    expect(await certificateRow(issuedDomain)).toEqual({ status: 'issued', reason: null });
  }, 120_000);

  it('registers its account again when a restarted Pebble no longer knows it, and issues', async () => {
    // Pebble keeps accounts in memory: after a restart the stored account is unknown to it
    // (RFC 8555 accountDoesNotExist), as after a CA's reset or an account's deactivation.
    await pebble.stop();
    processes.splice(processes.indexOf(pebble), 1);
    pebble = await startPebble();
    await deploySite(reissuedDomain);
    const body = await issuedCertificate(reissuedDomain);
    const leaf = new X509Certificate(body.cert);
    expect(leaf.subjectAltName).toBe(`DNS:${reissuedDomain}`);
    // Signed by the new Pebble's intermediate: the order went to the restarted CA.
    expect(leaf.verify(new X509Certificate(await pebbleManagement('/intermediates/0')).publicKey)).toBe(true);
    expect(stripVTControlCharacters(service.output())).toContain('unknown to the CA (accountDoesNotExist); registering a new one');
  }, 120_000);

  it('renews a certificate due for renewal when the Cron Trigger runs, with a new key', async () => {
    const before = await issuedCertificate(issuedDomain);
    const triggered = await runCron(service, '17 3 * * *');
    expect(triggered.status).toBe(200);
    let after: CertificateBody | undefined;
    await waitFor(async () => {
      after = await issuedCertificate(issuedDomain);
      return after.cert !== before.cert;
    }, 'the renewed certificate', 90_000, processes);
    const renewed = new X509Certificate(after!.cert);
    expect(renewed.serialNumber).not.toBe(new X509Certificate(before.cert).serialNumber);
    expect(renewed.subjectAltName).toBe(`DNS:${issuedDomain}`);
    expect(renewed.checkPrivateKey(createPrivateKey(after!.key))).toBe(true);
    expect(after!.key).not.toBe(before.key);
    expect(new Date(renewed.validTo).getTime()).toBeGreaterThan(new Date(new X509Certificate(before.cert).validTo).getTime());
    expect(await certificateRow(issuedDomain)).toEqual({ status: 'issued', reason: null });
  }, 120_000);

  it("ends failed with Pebble's reason when the challenge cannot be answered, after every retry", async () => {
    await deploySite(refusedDomain);
    let row: { status: string; reason: string | null } | undefined;
    await waitFor(async () => {
      row = await certificateRow(refusedDomain);
      return row?.status === 'failed';
    }, 'the job to fail', 110_000, processes);
    expect(row!.reason).toContain(`The ACME server refused the http-01 challenge for ${refusedDomain}`);
    expect(row!.reason).toMatch(/127\.0\.0\.2.*connection refused/i);
    const attempts = stripVTControlCharacters(service.output()).match(new RegExp(`"domain":"${refusedDomain.replaceAll('.', '\\.')}","attempt":\\d`, 'g'));
    expect(attempts).toHaveLength(6);
    expect((await api(`/v2/sites/${refusedDomain}/certificate`, 'global_read')).status).toBe(404);
  }, 120_000);
});
