import { describe, expect, it } from 'vitest';
import type { ApiToken, CreatedApiToken, Site } from '../../src/common/api-types';
import { authorized, call, deploy, deployForm, problemOf, type TokenOptions } from '../support/client';

/**
 * A member's token limited to a site they are a member of (docs/api.md, "Tokens"): scopes no wider
 * than their role there, and no more than their role at each request, through the real Worker.
 */

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const bearer = (secret: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${secret}` } });

const owner: TokenOptions = { user: 'github|mt-owner', scope: 'deploy' };
const deployer: TokenOptions = { user: 'github|mt-deployer', scope: 'deploy' };
const viewer: TokenOptions = { user: 'github|mt-viewer', scope: 'deploy' };
const stranger: TokenOptions = { user: 'github|mt-stranger', scope: 'deploy' };

async function ok(response: Response): Promise<Response> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response;
}

const setRole = async (domain: string, member: TokenOptions, role: 'deployer' | 'viewer') =>
  ok(await authorized(`/v2/sites/${domain}/members/${encodeURIComponent(member.user!)}`, json('PUT', { role }), owner));

/** A site of `owner` with the deployer and the viewer as members. */
async function siteWithMembers(domain: string): Promise<void> {
  await ok(await deploy(domain, { 'index.html': 'v1' }, undefined, owner));
  await setRole(domain, deployer, 'deployer');
  await setRole(domain, viewer, 'viewer');
}

async function create(as: TokenOptions, body: unknown): Promise<Response> {
  return authorized('/v2/tokens', json('POST', body), as);
}

async function made(as: TokenOptions, body: unknown): Promise<CreatedApiToken> {
  return (await ok(await create(as, body))).json<CreatedApiToken>();
}

const tokensOf = async (as: TokenOptions) => (await (await authorized('/v2/tokens', {}, as)).json<{ tokens: ApiToken[] }>()).tokens;
const redeploy = (domain: string, secret: string) => call(`/v2/sites/${domain}`, bearer(secret, { method: 'PUT', body: deployForm({ 'index.html': 'by a token' }) }));
const read = (domain: string, secret: string) => call(`/v2/sites/${domain}/configuration`, bearer(secret));

describe('a member’s token limited to a site', () => {
  it('a deployer makes a deploy token for the site: it deploys and reads it, and reaches nothing else', async () => {
    const domain = 'deployer.mt.example';
    await siteWithMembers(domain);
    await ok(await deploy('others.mt.example', { 'index.html': 'x' }, undefined, owner));
    const token = await made(deployer, { name: 'CI', scopes: ['deploy'], sites: [domain] });
    expect(token).toMatchObject({ scopes: ['deploy'], sites: [domain] });
    expect((await redeploy(domain, token.token)).status).toBe(200);
    expect((await read(domain, token.token)).status).toBe(200);
    const sites = await (await call('/v2/sites', bearer(token.token))).json<Site[]>();
    expect(sites).toEqual([{ domain, userId: owner.user, modified: expect.any(String), role: 'deployer' }]);
    // What the role does not allow stays refused: members are the owner's.
    const members = await call(`/v2/sites/${domain}/members/${encodeURIComponent('github|mt-third')}`, bearer(token.token, json('PUT', { role: 'viewer' })));
    expect(members.status).toBe(403);
    expect(await problemOf(members)).toMatchObject({ role: 'deployer' });
    expect((await redeploy('others.mt.example', token.token)).status).toBe(403);
  });

  it('a viewer makes a read token, not a deploy one; the read token reads the site and changes nothing', async () => {
    const domain = 'viewer.mt.example';
    await siteWithMembers(domain);
    const refused = await create(viewer, { name: 'deploys', scopes: ['deploy'], sites: [domain] });
    expect(refused.status).toBe(403);
    const problem = await problemOf(refused);
    expect(problem.type).toBe('/problems/forbidden');
    expect(problem.detail).toMatch(/viewer of viewer\.mt\.example.*"read".*not "deploy"/);
    expect(problem.errors).toEqual([{ pointer: '/sites/0', message: expect.stringMatching(/viewer/) }]);
    expect(await tokensOf(viewer)).toEqual([]);

    // `read` is within the viewer's `deploy`: a narrower token, which they may make.
    const token = await made(viewer, { name: 'dashboards', scopes: ['read'], sites: [domain] });
    expect(token.scopes).toEqual(['read']);
    for (const path of ['configuration', 'info', 'files/', 'deployments', 'members']) {
      expect((await call(`/v2/sites/${domain}/${path}`, bearer(token.token))).status, path).toBe(200);
    }
    expect((await (await call('/v2/sites', bearer(token.token))).json<Site[]>()).map((site) => site.role)).toEqual(['viewer']);
    const change = await redeploy(domain, token.token);
    expect(change.status).toBe(403);
    expect((await problemOf(change)).type).toBe('/problems/insufficient-scope');
  });

  it('refuses a site the caller neither owns nor is a member of, or that does not exist, naming each, and stores nothing', async () => {
    const domain = 'stranger.mt.example';
    await siteWithMembers(domain);
    const refused = await create(stranger, { name: 'x', scopes: ['read'], sites: [domain, 'nobody.mt.example'] });
    expect(refused.status).toBe(403);
    const problem = await problemOf(refused);
    // Each pointer names the domain where the request sent it.
    expect(problem.errors).toEqual([
      { pointer: '/sites/0', message: 'you neither own stranger.mt.example nor are a member of it' },
      { pointer: '/sites/1', message: 'you neither own nobody.mt.example nor are a member of it' },
    ]);
    expect(await tokensOf(stranger)).toEqual([]);
  });

  it('refuses every site of a token when one of them is beyond the role, whatever the others allow', async () => {
    const domain = 'mixed.mt.example';
    await siteWithMembers(domain);
    await ok(await deploy('viewers-own.mt.example', { 'index.html': 'x' }, undefined, viewer));
    const refused = await create(viewer, { name: 'both', scopes: ['deploy'], sites: ['viewers-own.mt.example', domain] });
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).errors).toEqual([{ pointer: '/sites/1', message: expect.stringMatching(/viewer of mixed\.mt\.example/) }]);
    expect((await made(viewer, { name: 'both', scopes: ['read'], sites: ['viewers-own.mt.example', domain] })).sites).toEqual([domain, 'viewers-own.mt.example']);
  });

  it('follows the member’s role at each request: lowered, it only reads; removed, nothing; at once, though the token’s check is remembered', async () => {
    const domain = 'lowered.mt.example';
    await siteWithMembers(domain);
    const token = await made(deployer, { name: 'CI', scopes: ['deploy'], sites: [domain] });
    // Used: this location now remembers the token's check for API_TOKEN_CHECK_SECONDS (30 s).
    expect((await redeploy(domain, token.token)).status).toBe(200);

    await setRole(domain, deployer, 'viewer');
    const lowered = await redeploy(domain, token.token);
    expect(lowered.status).toBe(403);
    expect(await problemOf(lowered)).toMatchObject({ role: 'viewer' });
    expect((await read(domain, token.token)).status).toBe(200);

    await ok(await authorized(`/v2/sites/${domain}/members/${encodeURIComponent(deployer.user!)}`, { method: 'DELETE' }, owner));
    expect((await read(domain, token.token)).status).toBe(403);
    expect((await redeploy(domain, token.token)).status).toBe(403);
    expect(await (await call('/v2/sites', bearer(token.token))).json()).toEqual([]);
    // The token itself is not revoked: its user still holds it, and it reaches the site again with them.
    expect((await tokensOf(deployer)).map((listed) => listed.id)).toContain(token.id);
    await setRole(domain, deployer, 'deployer');
    expect((await redeploy(domain, token.token)).status).toBe(200);
  });

  it('a read token reads the sites its user reaches, deploys nothing, and is no global_read', async () => {
    const domain = 'owner-read.mt.example';
    await siteWithMembers(domain);
    await ok(await deploy('strangers.mt.example', { 'index.html': 'x' }, undefined, stranger));
    const token = await made(owner, { name: 'reader', scopes: ['read'] });
    expect((await read(domain, token.token)).status).toBe(200);
    expect((await redeploy(domain, token.token)).status).toBe(403);
    expect((await read('strangers.mt.example', token.token)).status).toBe(403);
    expect((await call('/v2/configurations', bearer(token.token))).status).toBe(403);
  });
});
