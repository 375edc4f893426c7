import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runCertificateJob } from '../../src/certificates/jobs';
import { authorized, call, problemOf } from '../support/client';
import { ScriptedIssuer, acmeEnv, hostedSite, issuing, jobMessage, testCertificate } from './support';

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
