import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWK, type KeyObject, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Service, startService } from './support/service';

/**
 * Identity-provider tokens under `wrangler dev`: AUTH_JWKS_URL points at a key set served on
 * loopback (the provider's own stand-in, not a mock of the platform), so the Worker verifies
 * RS256 tokens exactly as it does Auth0's.
 */

let keys: Server;
let service: Service;
let privateKey: CryptoKey | KeyObject;
let issuer: string;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'provider-key', alg: 'RS256', use: 'sig' };
  keys = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  const port = await new Promise<number>((resolve) => keys.listen(0, '127.0.0.1', () => resolve((keys.address() as AddressInfo).port)));
  issuer = `http://127.0.0.1:${port}/`;
  service = await startService({ vars: { AUTH_JWKS_URL: `${issuer}.well-known/jwks.json`, AUTH_ISSUER: issuer } });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => keys?.close(resolve));
});

function providerToken(withExpiry: boolean): Promise<string> {
  const token = new SignJWT({ scope: 'deploy' })
    .setProtectedHeader({ alg: 'RS256', kid: 'provider-key' })
    .setSubject('auth0|1')
    .setIssuer(issuer)
    .setAudience('sitehost')
    .setIssuedAt();
  return (withExpiry ? token.setExpirationTime('10m') : token).sign(privateKey);
}

describe('identity-provider tokens', () => {
  it('are accepted with an exp', async () => {
    const response = await fetch(`${service.origin}/v2/sites`, { headers: { authorization: `Bearer ${await providerToken(true)}` } });
    expect(response.status).toBe(200);
  });

  it('are refused without one: 401 invalid_token', async () => {
    const response = await fetch(`${service.origin}/v2/sites`, { headers: { authorization: `Bearer ${await providerToken(false)}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="sitehost", error="invalid_token", error_description="The token has no \'exp\' claim."',
    );
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });
});
