import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { call, deployForm, problemOf, token } from '../support/client';

/** An HS256 token signed with the test secret, with exactly these claims. */
function signed(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(env.AUTH_SECRET!));
}

const deployWith = (bearer: string, domain: string) =>
  call(`/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${bearer}` }, body: deployForm({ 'index.html': 'x' }) });

describe('token expiry', () => {
  const claims = { sub: 'github|1', scope: 'deploy global_read', iss: 'sitehost', aud: 'sitehost' };

  it('refuses a token without exp (401 invalid_token) and deploys nothing', async () => {
    const response = await deployWith(await signed(claims), 'no-exp.example');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="sitehost", error="invalid_token", error_description="The token has no \'exp\' claim."',
    );
    expect(await problemOf(response)).toMatchObject({ status: 401, type: '/problems/unauthorized' });
    const site = await call('/v2/sites/no-exp.example/info', { headers: { authorization: `Bearer ${await token({ scope: 'global_read' })}` } });
    expect(site.status).toBe(404);
  });

  it('accepts the same claims with an exp', async () => {
    const response = await deployWith(await signed({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 }), 'with-exp.example');
    expect(response.status).toBe(200);
  });

  it('refuses a token issued in the future (iat), as one not yet valid (nbf)', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const claim of ['iat', 'nbf']) {
      const response = await deployWith(await signed({ ...claims, exp: now + 1200, [claim]: now + 600 }), `future-${claim}.example`);
      expect(response.status, claim).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer realm="sitehost", error="invalid_token", error_description="The token's '${claim}' claim is not accepted."`,
      );
    }
    const issuedNow = await deployWith(await signed({ ...claims, exp: now + 600, iat: now, nbf: now }), 'issued-now.example');
    expect(issuedNow.status).toBe(200);
  });

  it('refuses an exp that is not a number', async () => {
    const response = await deployWith(await signed({ ...claims, exp: 'never' }), 'bad-exp.example');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="sitehost", error="invalid_token"/);
  });
});
