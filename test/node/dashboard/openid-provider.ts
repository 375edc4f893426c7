import { createHash, randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';

/**
 * A minimal OpenID Connect provider on loopback, for the dashboard's sign-in test: discovery,
 * an authorization endpoint that signs `user` in at once, a token endpoint that checks the
 * PKCE verifier, and the JWKS the Worker verifies access tokens with. Its own test double of
 * an identity provider, not a mock of the platform.
 */
export interface OpenIdProvider {
  /** With a trailing slash, as Auth0 writes issuers; the `iss` of every token. */
  issuer: string;
  jwksUrl: string;
  /** The query of every authorization request received, for assertions. */
  authorizations: URLSearchParams[];
  stop(): Promise<void>;
}

interface PendingCode {
  challenge: string;
  clientId: string;
  redirectUri: string;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

export async function startOpenIdProvider(options: { clientId: string; audience: string; user: string; scope: string }): Promise<OpenIdProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  const authorizations: URLSearchParams[] = [];
  let issuer = '';

  const sign = (claims: Record<string, unknown>, audience: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(issuer)
      .setSubject(options.user)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);

  function json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(body));
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const form = new URLSearchParams(raw);
    const pending = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const verified =
      pending &&
      form.get('grant_type') === 'authorization_code' &&
      form.get('client_id') === pending.clientId &&
      form.get('redirect_uri') === pending.redirectUri &&
      base64url(createHash('sha256').update(verifier).digest()) === pending.challenge;
    if (!verified) return json(response, 400, { error: 'invalid_grant' });
    json(response, 200, {
      token_type: 'Bearer',
      expires_in: 600,
      access_token: await sign({ scope: options.scope }, options.audience),
      id_token: await sign({}, options.clientId),
    });
  }

  function authorize(url: URL, response: ServerResponse): void {
    authorizations.push(url.searchParams);
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('response_type') !== 'code' || query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')) {
      return json(response, 400, { error: 'invalid_request' });
    }
    const code = base64url(randomBytes(16));
    codes.set(code, { challenge: query.get('code_challenge')!, clientId: query.get('client_id') ?? '', redirectUri });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', query.get('state') ?? '');
    response.writeHead(302, { location: back.href });
    response.end();
  }

  const server = createServer((request, response) => {
    // The dashboard calls discovery and the token endpoint from its own origin (CORS).
    response.setHeader('access-control-allow-origin', '*');
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': '*' });
      return response.end();
    }
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}authorize`,
        // On another origin than the issuer, as Google's is: the page's CSP must allow it too.
        token_endpoint: `${issuer.replace('127.0.0.1', 'localhost')}token`,
        jwks_uri: `${issuer}jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['none'],
        subject_types_supported: ['public'],
      });
    }
    if (url.pathname === '/jwks') return json(response, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') return authorize(url, response);
    if (url.pathname === '/token' && request.method === 'POST') {
      token(request, response).catch((error: unknown) => json(response, 500, { error: String(error) }));
      return;
    }
    json(response, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  issuer = `http://127.0.0.1:${port}/`;
  return {
    issuer,
    jwksUrl: `${issuer}jwks`,
    authorizations,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
