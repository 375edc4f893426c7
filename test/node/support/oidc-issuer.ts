import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { type Service, startService } from './service';

/**
 * A real OIDC issuer on loopback, as GitHub Actions' is: a discovery document, a JWKS, RS256 ID
 * tokens with GitHub's claims, and the runner's ID token endpoint (`ACTIONS_ID_TOKEN_REQUEST_URL`,
 * answering `{"value": "<jwt>"}` for `&audience=`) that a job's `sitehost deploy` asks.
 */
export interface OidcIssuer {
  /** `http://127.0.0.1:<port>`: GITHUB_OIDC_ISSUER. */
  issuer: string;
  /** ACTIONS_ID_TOKEN_REQUEST_URL (with `?api-version=2.0`, as a runner's). */
  requestUrl: string;
  /** ACTIONS_ID_TOKEN_REQUEST_TOKEN, which the request endpoint requires. */
  requestToken: string;
  /** An ID token with GitHub's claims for `job` (and `claims` over them), for `audience`. */
  sign(audience: string, claims?: JWTPayload, options?: { foreignKey?: boolean; expiresIn?: string | number }): Promise<string>;
  /** The claims the request endpoint's tokens carry. */
  job: JWTPayload;
  /** While true, discovery and JWKS answer 503 (the issuer unreachable). */
  down: boolean;
  /** While true, discovery never answers (a stalled issuer). */
  hang: boolean;
  /** While true, the JWKS is padded past 64 KiB. */
  huge: boolean;
  /** How many times the discovery document and the JWKS were asked for. */
  discoveryFetches: number;
  jwksFetches: number;
  stop(): Promise<void>;
}

/** The claims of a push to main running .github/workflows/deploy.yml of octo-org/site (GitHub's documented shape). */
export function githubJob(): JWTPayload {
  return {
    sub: 'repo:octo-org/site:ref:refs/heads/main',
    repository: 'octo-org/site',
    repository_id: '101',
    repository_owner: 'octo-org',
    repository_owner_id: '202',
    ref: 'refs/heads/main',
    ref_type: 'branch',
    workflow: 'Deploy',
    workflow_ref: 'octo-org/site/.github/workflows/deploy.yml@refs/heads/main',
    job_workflow_ref: 'octo-org/site/.github/workflows/deploy.yml@refs/heads/main',
    event_name: 'push',
    run_id: '1',
    actor: 'octocat',
    runner_environment: 'github-hosted',
  };
}

async function startOidcIssuer(): Promise<OidcIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const kid = 'test-key-1';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const requestToken = 'runner-request-token';
  let serial = 0;

  const state = {} as OidcIssuer;
  const sign: OidcIssuer['sign'] = (audience, claims = {}, options = {}) =>
    new SignJWT({ ...state.job, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(state.issuer)
      .setAudience(audience)
      .setJti(`jti-${process.pid}-${++serial}`)
      .setIssuedAt()
      .setNotBefore('0s')
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.foreignKey ? foreign.privateKey : privateKey);

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', state.issuer);
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration' || url.pathname === '/.well-known/jwks') {
      if (url.pathname.endsWith('jwks')) state.jwksFetches++;
      else state.discoveryFetches++;
      if (state.hang && !url.pathname.endsWith('jwks')) return;
      if (state.down) return answer(503, { message: 'down' });
      if (url.pathname.endsWith('jwks')) return answer(200, { keys: [jwk], ...(state.huge ? { padding: 'x'.repeat(100 * 1024) } : {}) });
      return answer(200, { issuer: state.issuer, jwks_uri: `${state.issuer}/.well-known/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (url.pathname === '/id-token') {
      if (request.headers.authorization !== `Bearer ${requestToken}`) return answer(401, { message: 'bad request token' });
      const audience = url.searchParams.get('audience');
      if (!audience) return answer(400, { message: 'audience required' });
      sign(audience).then((value) => answer(200, { count: 1, value }), (error: unknown) => answer(500, { message: String(error) }));
      return;
    }
    answer(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(state, {
    issuer: `http://127.0.0.1:${port}`,
    requestUrl: `http://127.0.0.1:${port}/id-token?api-version=2.0`,
    requestToken,
    sign,
    job: githubJob(),
    down: false,
    hang: false,
    huge: false,
    discoveryFetches: 0,
    jwksFetches: 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A stalled answer (`hang`) holds its connection open: close waits for none.
        server.closeAllConnections();
      }),
  });
  return state;
}

/** A running service that trusts a new issuer on loopback (its GITHUB_OIDC_ISSUER), and one stop for both. */
export interface TrustingService {
  issuer: OidcIssuer;
  service: Service;
  stop(): Promise<void>;
}

/** Starts an issuer, then the service trusting it (with `vars` besides); the service stops first, then the issuer, even when the service fails to. */
export async function startTrustingService(vars: Record<string, string> = {}): Promise<TrustingService> {
  const issuer = await startOidcIssuer();
  let service: Service;
  try {
    service = await startService({ vars: { ...vars, GITHUB_OIDC_ISSUER: issuer.issuer } });
  } catch (error) {
    await issuer.stop();
    throw error;
  }
  return {
    issuer,
    service,
    async stop() {
      try {
        await service.stop();
      } finally {
        await issuer.stop();
      }
    },
  };
}
