import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcExchange } from '../../src/common/api-types';
import { type OidcIssuer, type TrustingService, startTrustingService } from './support/oidc-issuer';
import { type Service, getFromSite, token, wholeForm } from './support/service';

/**
 * `POST /v2/oidc/github`, black-box: the running service (npm start) verifies ID tokens of a real
 * issuer on loopback (GITHUB_OIDC_ISSUER), found through its discovery document, nothing mocked.
 */

let running: TrustingService | undefined;
let issuer: OidcIssuer;
let service: Service;
const owner = 'github|oidc-owner';
const domain = 'oidc.example';
const policy = { repository: 'octo-org/site', repositoryId: '101', repositoryOwnerId: '202', workflow: '.github/workflows/deploy.yml', ref: 'refs/heads/main' };

async function asOwner(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${await token(service, owner)}`);
  return fetch(`${service.origin}${path}`, { ...init, headers });
}

function exchange(body: unknown): Promise<Response> {
  return fetch(`${service.origin}/v2/oidc/github`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/**
 * POSTs `body` through node:http, a chunk at a time, and takes the answer even when the service
 * answers and closes before the body is all sent (which fetch reports as a failure, not as the
 * answer). Sending stops once the answer has come: a service that answers without reading the
 * rest need not be sent it, nor wait for a busy machine to push it all through.
 */
function exchangeRaw(body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const sending = request(`${service.origin}/v2/oidc/github`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      answered = true;
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode!, body: text });
        sending.destroy();
      });
    });
    sending.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    const bytes = Buffer.from(body);
    const chunk = 64 * 1024;
    const send = (from: number): void => {
      for (let at = from; at < bytes.length; at += chunk) {
        if (answered || sending.destroyed) return;
        if (!sending.write(bytes.subarray(at, at + chunk))) {
          sending.once('drain', () => send(at + chunk));
          return;
        }
      }
      sending.end();
    };
    send(0);
  });
}

async function problem(response: Response): Promise<{ status: number; detail: string; claim?: string }> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return response.json();
}

/** Sent whole with its headers (see wholeForm): the deploy refused before its body is read meets no EPIPE. */
async function deployWith(bearer: string, site: string, page = '<h1>from Actions</h1>'): Promise<Response> {
  const form = new FormData();
  form.append('directory', new File([page], 'index.html'));
  const { headers, body } = await wholeForm(form);
  return fetch(`${service.origin}/v2/sites/${site}`, { method: 'PUT', headers: { ...headers, authorization: `Bearer ${bearer}` }, body });
}

/** `path` with `bearer`, as JSON when `body` is given. */
function withToken(bearer: string, path: string, method = 'GET', body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${service.origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** A site of the owner trusting `policy` (over the file's), deployed first. */
async function trustingSite(site: string, extra: Record<string, unknown> = {}, as = owner): Promise<void> {
  expect((await deployWith(await token(service, as), site)).status).toBe(200);
  const put = await withToken(await token(service, as), `/v2/sites/${site}/trust/github`, 'PUT', { ...policy, ...extra });
  expect(put.status, await put.clone().text()).toBe(201);
}

async function exchanged(body: unknown): Promise<OidcExchange> {
  const answer = await exchange(body);
  expect(answer.status, await answer.clone().text()).toBe(200);
  return answer.json();
}

beforeAll(async () => {
  // Two exchanges a site per hour: the limit is reached within a test; a failed issuer is asked again after 5 s.
  running = await startTrustingService({ OIDC_EXCHANGES_PER_SITE_HOUR: '2', OIDC_ISSUER_RETRY_SECONDS: '5' });
  ({ service, issuer } = running);
}, 120_000);

afterAll(async () => {
  await running?.stop();
});

describe('POST /v2/oidc/github', () => {
  // First, while no key is cached: a stalled issuer, one down, one answering a key set past the cap.
  it('answers 503 with Retry-After while the issuer stalls, is down or answers too much, asking it again only after OIDC_ISSUER_RETRY_SECONDS', async () => {
    const status = async () => (await exchange({ token: await issuer.sign(service.origin) })).status;
    try {
      issuer.hang = true;
      const stalled = await exchange({ token: await issuer.sign(service.origin) });
      expect(stalled.status).toBe(503);
      expect(Number(stalled.headers.get('retry-after'))).toBeGreaterThan(0);
      issuer.hang = false;

      // Down: once the stall's failure is forgotten, the issuer is asked again, and fails again.
      issuer.down = true;
      await expect.poll(async () => [await status(), issuer.discoveryFetches > 1], { timeout: 30_000 }).toEqual([503, true]);
      // Remembered: an exchange right after a failure does not ask the issuer.
      const asked = issuer.discoveryFetches;
      expect(await status()).toBe(503);
      expect(issuer.discoveryFetches).toBe(asked);
      issuer.down = false;

      issuer.huge = true;
      const jwks = issuer.jwksFetches;
      await expect.poll(async () => [await status(), issuer.jwksFetches > jwks], { timeout: 30_000 }).toEqual([503, true]);
    } finally {
      issuer.hang = false;
      issuer.down = false;
      issuer.huge = false;
    }
    // Back: a token no policy accepts is now refused for its claims, no longer for the issuer.
    await expect.poll(status, { timeout: 30_000 }).toBe(403);
  });

  it('trades a matching ID token for a token of the trusting site only, living at most 15 minutes, that deploys it once', async () => {
    expect((await deployWith(await token(service, owner), domain)).status).toBe(200);
    expect((await deployWith(await token(service, owner), 'other-oidc.example')).status).toBe(200);
    const put = await asOwner(`/v2/sites/${domain}/trust/github`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(policy) });
    expect(put.status, await put.clone().text()).toBe(201);

    const idToken = await issuer.sign(service.origin);
    const answered = await exchange({ token: idToken });
    expect(answered.status, await answered.clone().text()).toBe(200);
    const exchanged = (await answered.json()) as OidcExchange;
    expect(exchanged.sites).toEqual([domain]);
    expect(exchanged.token).toMatch(/^sitehost_[0-9A-Za-z]{36}$/);
    const lifetime = Date.parse(`${exchanged.expiresAt}Z`) - Date.now();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);

    expect((await deployWith(exchanged.token, domain)).status).toBe(200);
    const elsewhere = await deployWith(exchanged.token, 'other-oidc.example');
    expect(elsewhere.status).toBe(403);

    // The same ID token again is a replay.
    const replayed = await exchange({ token: idToken });
    expect(replayed.status).toBe(401);
    expect((await problem(replayed)).detail).toMatch(/exchanged already/);
  });

  it('refuses a claim the policy does not accept with a 403 naming it', async () => {
    for (const [claims, named] of [
      [{ repository_id: '999' }, 'repository_id'],
      [{ repository_owner_id: '999' }, 'repository_owner_id'],
      [{ job_workflow_ref: 'octo-org/site/.github/workflows/other.yml@refs/heads/main' }, 'job_workflow_ref'],
      [{ ref: 'refs/heads/feature' }, 'ref'],
    ] as const) {
      const refused = await exchange({ token: await issuer.sign(service.origin, claims) });
      expect(refused.status, named).toBe(403);
      const body = await problem(refused);
      expect(body.claim).toBe(named);
      expect(body.detail).toContain(`"${named}"`);
    }
  });

  it('refuses a bad signature, the wrong audience and an expired token with 401', async () => {
    for (const [idToken, detail] of [
      [await issuer.sign(service.origin, {}, { foreignKey: true }), /could not be verified/],
      [await issuer.sign('https://someone-else.example'), /"aud"/],
      [await issuer.sign(service.origin, { iat: Math.floor(Date.now() / 1000) - 3600, nbf: Math.floor(Date.now() / 1000) - 3600 }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), /expired/],
    ] as const) {
      const refused = await exchange({ token: idToken });
      expect(refused.status).toBe(401);
      expect((await problem(refused)).detail).toMatch(detail);
    }
  });

  it('makes a deployer, never the owner: refused with a problem on members, trust, tokens and unpublish, and the site still serves', async () => {
    await trustingSite('ci-deployer.example');
    const { token: ci } = await exchanged({ token: await issuer.sign(service.origin), domain: 'ci-deployer.example' });
    expect((await deployWith(ci, 'ci-deployer.example')).status).toBe(200);
    for (const [path, method, body] of [
      ['/v2/sites/ci-deployer.example/members/github%7Cattacker', 'PUT', { role: 'deployer' }],
      ['/v2/sites/ci-deployer.example/trust/github', 'PUT', { ...policy, repository: 'attacker/repo', repositoryId: '666', repositoryOwnerId: '667' }],
      ['/v2/sites/ci-deployer.example/trust/github', 'GET', undefined],
      ['/v2/sites/ci-deployer.example', 'DELETE', undefined],
      ['/v2/tokens', 'POST', { name: 'forever', scopes: ['deploy'], sites: ['ci-deployer.example'] }],
    ] as const) {
      const refused = await withToken(ci, path, method, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect((await problem(refused)).detail).toBeTruthy();
    }
    const members = await (await withToken(await token(service, owner), '/v2/sites/ci-deployer.example/members')).json();
    expect(members.members).toEqual([]);
    const trust = await (await withToken(await token(service, owner), '/v2/sites/ci-deployer.example/trust/github')).json();
    expect(trust.repositoryId).toBe(policy.repositoryId);
    expect((await getFromSite(service, 'ci-deployer.example', '/')).status).toBe(200);
  });

  it('records the job’s verified claims on the deployment it makes', async () => {
    await trustingSite('ci-provenance.example');
    const { token: ci } = await exchanged({ token: await issuer.sign(service.origin, { run_id: '9001', run_attempt: '3', sha: 'c0ffee', actor: 'mona' }), domain: 'ci-provenance.example' });
    expect((await deployWith(ci, 'ci-provenance.example', '<h1>run 9001</h1>')).status).toBe(200);
    const page = await (await withToken(await token(service, owner), '/v2/sites/ci-provenance.example/deployments')).json();
    expect(page.deployments[0].provenance).toEqual({
      credential: 'github-actions',
      tokenId: expect.any(String),
      repository: 'octo-org/site',
      repositoryId: '101',
      workflow: '.github/workflows/deploy.yml',
      ref: 'refs/heads/main',
      sha: 'c0ffee',
      runId: '9001',
      runAttempt: '3',
      actor: 'mona',
      environment: null,
    });
  });

  it('refuses pull_request_target unless the policy names it, and a policy may ask for one event', async () => {
    await trustingSite('ci-events.example');
    const target = await exchange({ token: await issuer.sign(service.origin, { event_name: 'pull_request_target' }), domain: 'ci-events.example' });
    expect(target.status).toBe(403);
    expect((await problem(target)).claim).toBe('event_name');
    await trustingSite('ci-dispatch.example', { eventName: 'workflow_dispatch' });
    expect((await exchange({ token: await issuer.sign(service.origin), domain: 'ci-dispatch.example' })).status).toBe(403);
    expect((await exchanged({ token: await issuer.sign(service.origin, { event_name: 'workflow_dispatch' }), domain: 'ci-dispatch.example' })).sites).toEqual(['ci-dispatch.example']);
  });

  it('counts exchanges per site and hour: past OIDC_EXCHANGES_PER_SITE_HOUR, 429 naming it', async () => {
    await trustingSite('ci-limit.example');
    for (let run = 0; run < 2; run++) await exchanged({ token: await issuer.sign(service.origin), domain: 'ci-limit.example' });
    const refused = await exchange({ token: await issuer.sign(service.origin), domain: 'ci-limit.example' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ limit: 'OIDC_EXCHANGES_PER_SITE_HOUR', value: 2 });
  });

  // Last: from here on a stranger's policy names the repository too.
  it('lets no policy on another owner’s site affect an exchange that names its site; without one, 409 naming no site', async () => {
    await trustingSite('ci-mine.example');
    await trustingSite('ci-strangers.example', {}, 'github|oidc-stranger');
    const mine = await exchanged({ token: await issuer.sign(service.origin), domain: 'ci-mine.example' });
    expect(mine.sites).toEqual(['ci-mine.example']);
    const ambiguous = await exchange({ token: await issuer.sign(service.origin) });
    expect(ambiguous.status).toBe(409);
    const { detail } = await problem(ambiguous);
    expect(detail).toContain('"domain"');
    expect(detail).not.toContain('ci-strangers.example');
    expect(detail).not.toContain('ci-mine.example');
  });

  // Several MB are refused in the runtime itself (test/api/oidc-exchange-limits.test.ts): wrangler's local proxy may hold an answer
  // while a body is still pushed at it (seen on a busy machine at 5 MB and at 256 KiB), so here the token is just past the limit.
  it('refuses an ID token past the limit with 413, and a body without a token with 400', async () => {
    const huge = await exchangeRaw(JSON.stringify({ token: 'e'.repeat(20 * 1024) }));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body).detail).toMatch(/at most 16384 bytes/);
    expect((await exchange({ nothing: true })).status).toBe(400);
  });
});
