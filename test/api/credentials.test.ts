/**
 * What a credential leaves behind and what it may make: a deployment records with what credential
 * it was made (a CI identity's verified job, an API token's id and name, a sign-in), in
 * `GET …/deployments` and in the `site-deploy` event; a CI identity's tokens are outside
 * API_TOKENS_PER_USER and swept once expired; a token limited to sites is a deployer unless made
 * with role owner, which only its sites' owner gives. The table of who may do what is walked by
 * test/api/authority.test.ts; the exchange itself, with a real issuer, by test/node/github-oidc.test.ts.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mintCiToken } from '../../src/auth/ci-tokens';
import type { CreatedApiToken, DeployResult, DeploymentPage } from '../../src/common/api-types';
import worker from '../../src/index';
import { subscribe } from '../events/subscriber';
import { authorized, authorizedWith, call, deployForm, problemOf, type TokenOptions } from '../support/client';
import { keepDeployments } from '../support/deployments';
import { manifestOf } from '../support/incremental';

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const job = { repository: 'octo-org/site', repositoryId: '101', workflow: '.github/workflows/deploy.yml', ref: 'refs/heads/main', sha: 'f00dfeed', runId: '4242', runAttempt: '2', actor: 'octocat', environment: 'production' };

function withBearer(secret: string, init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${secret}`);
  return { ...init, headers };
}

async function madeToken(body: unknown, as: TokenOptions): Promise<CreatedApiToken> {
  const made = await authorized('/v2/tokens', json('POST', body), as);
  expect(made.status, await made.clone().text()).toBe(201);
  return made.json();
}

describe('provenance', () => {
  it('records on each deployment the credential that made it: the job’s verified claims, the token’s id and name, or a sign-in', async () => {
    const owner: TokenOptions = { user: 'github|provenance-owner' };
    const domain = 'provenance.example';
    await keepDeployments(domain, 20, 30);
    const events = await subscribe();
    const first = await authorized(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'signed in' }) }, owner);
    expect(first.status).toBe(200);

    const ci = await mintCiToken(env.DB, 'github|provenance-owner', [domain], job, Date.now());
    const byJob = await call(`/v2/sites/${domain}`, withBearer(ci.token, { method: 'PUT', body: deployForm({ 'index.html': 'from Actions' }) }));
    expect(byJob.status, await byJob.clone().text()).toBe(200);
    const jobResult = await byJob.json<DeployResult>();
    const fromJob = { credential: 'github-actions', tokenId: ci.record.id, ...job };
    expect(jobResult.provenance).toEqual(fromJob);
    // It says what it is, and lists its site as what it is there: a deployer.
    expect(await (await call('/v2/whoami', withBearer(ci.token))).json()).toMatchObject({ tokenId: ci.record.id, sites: [domain], role: 'deployer', via: 'github-oidc' });
    expect(await (await call('/v2/sites', withBearer(ci.token))).json()).toMatchObject([{ domain, role: 'deployer' }]);

    const laptop = await madeToken({ name: 'laptop', scopes: ['deploy'] }, owner);
    const incremental = await call(`/v2/sites/${domain}/deployments`, withBearer(laptop.token, json('POST', { files: await manifestOf({ 'index.html': 'from Actions', 'again.html': 'from Actions' }), finalize: 'live' })));
    expect(incremental.status, await incremental.clone().text()).toBe(200);
    const tokenResult = await incremental.json<DeployResult>();

    const page = await (await authorized(`/v2/sites/${domain}/deployments`, {}, owner)).json<DeploymentPage>();
    expect(page.deployments.map((deployment) => deployment.provenance)).toEqual([
      { credential: 'api-token', tokenId: laptop.id, tokenName: 'laptop' },
      fromJob,
      { credential: 'jwt' },
    ]);
    // The site-deploy event carries it, as the answer did.
    await events.until(() => events.events.filter((event) => event.event === 'site-deploy' && event.data.includes(domain)).length >= 3);
    await events.close();
    const published = events.events.filter((event) => event.event === 'site-deploy').map((event) => JSON.parse(event.data) as DeployResult).filter((event) => event.domain === domain);
    expect(published.map((event) => [event.deploymentId, event.provenance])).toEqual([
      [(await first.clone().json<DeployResult>()).deploymentId, { credential: 'jwt' }],
      [jobResult.deploymentId, fromJob],
      [tokenResult.deploymentId, { credential: 'api-token', tokenId: laptop.id, tokenName: 'laptop' }],
    ]);
  });
});

describe('a CI identity’s tokens', () => {
  it('are outside API_TOKENS_PER_USER: a user at the limit of their own is not stopped by their CI, nor their CI by them', async () => {
    const user: TokenOptions = { user: 'github|ci-limit-user' };
    const limit = { API_TOKENS_PER_USER: '2' };
    const make = (name: string) => authorizedWith(limit, '/v2/tokens', json('POST', { name, scopes: ['deploy'] }), user);
    expect((await make('first')).status).toBe(201);
    for (let run = 0; run < 3; run++) await mintCiToken(env.DB, 'github|ci-limit-user', ['ci-limit.example'], job, Date.now());
    expect((await make('second')).status).toBe(201);
    const third = await make('third');
    expect(third.status).toBe(403);
    expect(await problemOf(third)).toMatchObject({ limit: 'API_TOKENS_PER_USER', value: 2 });
  });

  it('are listed as the job’s, a deployer of their sites, and swept by the daily cron once expired', async () => {
    const user: TokenOptions = { user: 'github|ci-swept-user' };
    const kept = await madeToken({ name: 'kept', scopes: ['deploy'] }, user);
    const { record } = await mintCiToken(env.DB, 'github|ci-swept-user', ['ci-swept.example'], job, Date.now());
    const listed = await (await authorized('/v2/tokens', {}, user)).json<{ tokens: { id: string; role: string | null; via?: string }[] }>();
    expect(listed.tokens.find((token) => token.id === record.id)).toMatchObject({ role: 'deployer', via: 'github-oidc' });

    const ids = async () => (await env.DB.prepare('SELECT id FROM api_tokens WHERE user_id = ?').bind('github|ci-swept-user').all<{ id: string }>()).results.map((row) => row.id).sort();
    expect(await ids()).toEqual([kept.id, record.id].sort());
    await worker.scheduled(createScheduledController({ scheduledTime: record.expires + 1, cron: '17 3 * * *' }), env);
    expect(await ids()).toEqual([kept.id]);
  });
});

describe('a token limited to sites', () => {
  const owner: TokenOptions = { user: 'github|role-owner' };
  const deployer: TokenOptions = { user: 'github|role-deployer' };

  it('is a deployer unless made with role owner, which only the sites’ owner gives; role needs sites', async () => {
    const domain = 'roles.example';
    expect((await authorized(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'x' }) }, owner)).status).toBe(200);
    expect((await authorized(`/v2/sites/${domain}/members/${encodeURIComponent('github|role-deployer')}`, json('PUT', { role: 'deployer' }), owner)).status).toBe(201);

    const plain = await madeToken({ name: 'plain', scopes: ['deploy'], sites: [domain] }, owner);
    expect(plain.role).toBe('deployer');
    const refused = await call(`/v2/sites/${domain}/members/${encodeURIComponent('github|role-third')}`, withBearer(plain.token, json('PUT', { role: 'viewer' })));
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/forbidden', role: 'deployer' });

    const owning = await madeToken({ name: 'owning', scopes: ['deploy'], sites: [domain], role: 'owner' }, owner);
    expect(owning.role).toBe('owner');
    expect((await call(`/v2/sites/${domain}/members/${encodeURIComponent('github|role-third')}`, withBearer(owning.token, json('PUT', { role: 'viewer' })))).status).toBe(201);

    const beyond = await authorized('/v2/tokens', json('POST', { name: 'beyond', scopes: ['deploy'], sites: [domain], role: 'owner' }), deployer);
    expect(beyond.status).toBe(403);
    expect(await problemOf(beyond)).toMatchObject({ type: '/problems/forbidden', errors: [{ pointer: '/sites/0' }] });
    for (const body of [{ name: 'no sites', scopes: ['deploy'], role: 'owner' }, { name: 'unknown', scopes: ['deploy'], sites: [domain], role: 'admin' }]) {
      const invalid = await authorized('/v2/tokens', json('POST', body), owner);
      expect(invalid.status, body.name).toBe(400);
      expect(await problemOf(invalid)).toMatchObject({ errors: [{ pointer: '/role' }] });
    }
  });
});
