import { describe, expect, it } from 'vitest';
import type { CreatedApiToken, DeployResult, GithubTrustPolicy, Site, SiteMembers } from '../../src/common/api-types';
import { call, deployForm, problemOf, token } from '../support/client';
import { manifestOf } from '../support/incremental';

/**
 * Site members, and the one access rule (src/coordinator/access/access.ts) as every route applies it:
 * a table of each role against each route, through the Worker and its coordinators.
 */

const owner = 'github|member-owner';
const deployer = 'github|member-deployer';
const viewer = 'github|member-viewer';

type Role =
  | 'owner'
  | 'deployer'
  | 'viewer'
  | 'stranger'
  | 'admin'
  | 'global_read'
  | 'token for another site'
  | 'token for this site'
  | 'deployer’s token for this site'
  | 'viewer’s token for this site';
const roles: Role[] = ['owner', 'deployer', 'viewer', 'stranger', 'admin', 'global_read', 'token for another site', 'token for this site', 'deployer’s token for this site', 'viewer’s token for this site'];

/** What a route needs (the rule's actions, and the operator's). */
type Need = 'read' | 'read-own' | 'change' | 'own' | 'unpublish' | 'admin';
const allowedTo: Record<Need, readonly Role[]> = {
  read: ['owner', 'deployer', 'viewer', 'global_read', 'token for this site', 'deployer’s token for this site', 'viewer’s token for this site'],
  'read-own': ['owner', 'global_read', 'token for this site'],
  change: ['owner', 'deployer', 'token for this site', 'deployer’s token for this site'],
  own: ['owner', 'token for this site'],
  unpublish: ['owner', 'admin', 'token for this site'],
  admin: ['admin'],
};

const json = (method: string, body: unknown, type = 'application/json'): RequestInit => ({ method, headers: { 'content-type': type }, body: JSON.stringify(body) });
const trustPolicy = { repository: 'octo-org/site', repositoryId: '101', repositoryOwnerId: '202', workflow: '.github/workflows/deploy.yml' };

async function bearer(user: string, scope = 'deploy'): Promise<string> {
  return token({ user, scope });
}

async function send(path: string, init: RequestInit, secret: string): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${secret}`);
  return call(path, { ...init, headers });
}

async function ok(response: Response): Promise<Response> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response;
}

/** A site of `owner` with a deployer, a viewer and a trust policy; its live deployment's id. */
async function siteWithMembers(domain: string): Promise<string> {
  const as = await bearer(owner);
  const deployed = await (await ok(await send(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'v1' }) }, as))).json<DeployResult & { deploymentId: string }>();
  await ok(await send(`/v2/sites/${domain}/members/${encodeURIComponent(deployer)}`, json('PUT', { role: 'deployer' }), as));
  await ok(await send(`/v2/sites/${domain}/members/${encodeURIComponent(viewer)}`, json('PUT', { role: 'viewer' }), as));
  await ok(await send(`/v2/sites/${domain}/trust/github`, json('PUT', trustPolicy), as));
  return deployed.deploymentId;
}

/** An API token of `user` (the owner, unless named) limited to `domain`, which they own or are a member of. */
async function siteToken(domain: string, user = owner, scope = 'deploy'): Promise<string> {
  const made = await ok(await send('/v2/tokens', json('POST', { name: domain, scopes: [scope], sites: [domain] }), await bearer(user)));
  return (await made.json<CreatedApiToken>()).token;
}

async function secretOf(role: Role, domain: string, elsewhere: string): Promise<string> {
  switch (role) {
    case 'owner':
      return bearer(owner);
    case 'deployer':
      return bearer(deployer);
    case 'viewer':
      return bearer(viewer);
    case 'stranger':
      return bearer('github|member-stranger');
    case 'admin':
      return bearer('github|member-operator', 'admin');
    case 'global_read':
      return bearer('github|member-reader', 'global_read');
    case 'token for another site':
      return siteToken(elsewhere);
    case 'token for this site':
      return siteToken(domain);
    case 'deployer’s token for this site':
      return siteToken(domain, deployer);
    case 'viewer’s token for this site':
      return siteToken(domain, viewer, 'read');
  }
}

/** Every route of a site, in an order each can run after the ones before (the unpublish last). */
async function routes(domain: string, deploymentId: string): Promise<[string, Need, string, RequestInit][]> {
  const third = encodeURIComponent('github|member-third');
  return [
    ['GET info', 'read', `/v2/sites/${domain}/info`, {}],
    ['GET configuration', 'read', `/v2/sites/${domain}/configuration`, {}],
    ['GET files/', 'read', `/v2/sites/${domain}/files/`, {}],
    ['GET files/index.html', 'read', `/v2/sites/${domain}/files/index.html`, {}],
    ['GET deployments', 'read', `/v2/sites/${domain}/deployments`, {}],
    ['GET deployments/<id>', 'read', `/v2/sites/${domain}/deployments/${deploymentId}`, {}],
    ['GET members', 'read', `/v2/sites/${domain}/members`, {}],
    ['GET trust/github', 'read-own', `/v2/sites/${domain}/trust/github`, {}],
    ['POST deployments/<id>/activate', 'change', `/v2/sites/${domain}/deployments/${deploymentId}/activate`, { method: 'POST' }],
    ['PUT configuration', 'change', `/v2/sites/${domain}/configuration`, json('PUT', {})],
    ['PATCH configuration', 'change', `/v2/sites/${domain}/configuration`, json('PATCH', {}, 'application/merge-patch+json')],
    ['PATCH info', 'change', `/v2/sites/${domain}/info`, json('PATCH', { metadata: { by: 'x' } }, 'application/merge-patch+json')],
    ['PUT files/<path>', 'change', `/v2/sites/${domain}/files/new.html`, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'new' }],
    ['DELETE files/<path>', 'change', `/v2/sites/${domain}/files/new.html`, { method: 'DELETE' }],
    ['PUT (deploy)', 'change', `/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'v2' }) }],
    ['PUT ?preview=true', 'change', `/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'v3' }) }],
    ['POST deployments', 'change', `/v2/sites/${domain}/deployments`, json('POST', { files: await manifestOf({ 'index.html': 'v1' }), finalize: 'live' })],
    ['PUT members/<user>', 'own', `/v2/sites/${domain}/members/${third}`, json('PUT', { role: 'viewer' })],
    ['DELETE members/<user>', 'own', `/v2/sites/${domain}/members/${third}`, { method: 'DELETE' }],
    ['PUT trust/github', 'own', `/v2/sites/${domain}/trust/github`, json('PUT', { ...trustPolicy, ref: 'refs/heads/main' })],
    ['DELETE trust/github', 'own', `/v2/sites/${domain}/trust/github`, { method: 'DELETE' }],
    ['PUT suspension', 'admin', `/v2/sites/${domain}/suspension`, json('PUT', { reason: 'checking the table' })],
    ['DELETE suspension', 'admin', `/v2/sites/${domain}/suspension`, { method: 'DELETE' }],
    ['DELETE (unpublish)', 'unpublish', `/v2/sites/${domain}`, { method: 'DELETE' }],
  ];
}

describe('the access rule, role by route', () => {
  it.each(roles.map((role, index) => [role, index] as const))('%s', async (role, index) => {
    const domain = `table-${index}.members.example`;
    const elsewhere = `elsewhere-${index}.members.example`;
    await ok(await send(`/v2/sites/${elsewhere}`, { method: 'PUT', body: deployForm({ 'index.html': 'x' }) }, await bearer(owner)));
    const deploymentId = await siteWithMembers(domain);
    const secret = await secretOf(role, domain, elsewhere);
    const answers: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [name, need, path, init] of await routes(domain, deploymentId)) {
      const response = await send(path, init, secret);
      answers[name] = response.status < 300 ? 'allowed' : `${response.status} ${response.status === 403 ? '' : await response.text()}`.trim();
      expected[name] = allowedTo[need].includes(role) ? 'allowed' : '403';
    }
    expect(answers).toEqual(expected);
    if (!allowedTo.change.includes(role) && !allowedTo.unpublish.includes(role)) {
      // Refused, and nothing changed: the owner still sees the site with its members as they were.
      const info = await (await ok(await send(`/v2/sites/${domain}/info`, {}, await bearer(owner)))).json<{ metadata: Record<string, string> }>();
      expect(info.metadata).toEqual({});
      const members = await (await send(`/v2/sites/${domain}/members`, {}, await bearer(owner))).json<SiteMembers>();
      expect(members.members.map((member) => member.userId)).toEqual([deployer, viewer]);
    }
  });
});

describe('members', () => {
  it('lists the owner and the members; a member sees the site in GET /v2/sites with its role; removal ends its access', async () => {
    const domain = 'listed.members.example';
    await siteWithMembers(domain);
    const members = await (await ok(await send(`/v2/sites/${domain}/members`, {}, await bearer(viewer)))).json<SiteMembers>();
    expect(members.owner).toMatchObject({ userId: owner, role: 'owner' });
    expect(members.members).toEqual([
      { userId: deployer, role: 'deployer', addedAt: expect.stringMatching(/^\d{4}-/) },
      { userId: viewer, role: 'viewer', addedAt: expect.stringMatching(/^\d{4}-/) },
    ]);
    const sites = await (await ok(await send('/v2/sites', {}, await bearer(viewer)))).json<Site[]>();
    expect(sites.find((site) => site.domain === domain)).toEqual({ domain, userId: owner, modified: expect.any(String), role: 'viewer' });
    const own = await (await ok(await send('/v2/sites', {}, await bearer(owner)))).json<Site[]>();
    expect(own.find((site) => site.domain === domain)?.role).toBe('owner');

    expect((await send(`/v2/sites/${domain}/members/${encodeURIComponent(viewer)}`, { method: 'DELETE' }, await bearer(owner))).status).toBe(204);
    expect((await send(`/v2/sites/${domain}/info`, {}, await bearer(viewer))).status).toBe(403);
    expect((await (await send('/v2/sites', {}, await bearer(viewer))).json<Site[]>()).map((site) => site.domain)).not.toContain(domain);
  });

  it('counts a deployer’s deploy against the owner: the owner’s usage grows, the deployer’s does not', async () => {
    const domain = 'quota.members.example';
    await siteWithMembers(domain);
    const usageOf = async (user: string) => (await (await ok(await send('/v2/usage', {}, await bearer(user)))).json<{ bytes: { used: number } }>()).bytes.used;
    const [ownerBefore, deployerBefore] = [await usageOf(owner), await usageOf(deployer)];
    await ok(await send(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'big.html': 'x'.repeat(10_000) }) }, await bearer(deployer)));
    expect(await usageOf(owner)).toBeGreaterThan(ownerBefore);
    expect(await usageOf(deployer)).toBe(deployerBefore);
    // The site is still the owner's.
    const info = await (await ok(await send(`/v2/sites/${domain}/info`, {}, await bearer(deployer)))).json<{ userId: string }>();
    expect(info.userId).toBe(owner);
  });

  it('refuses a deploy a deployer began once they are removed: the coordinator checks the member as it commits', async () => {
    const domain = 'removed.members.example';
    await siteWithMembers(domain);
    const as = await bearer(deployer);
    const begun = await send(`/v2/sites/${domain}/deployments`, json('POST', { files: await manifestOf({ 'index.html': 'new bytes' }) }), as);
    expect(begun.status, await begun.clone().text()).toBe(201);
    const { id } = await begun.json<{ id: string }>();
    await ok(await send(`/v2/sites/${domain}/members/${encodeURIComponent(deployer)}`, { method: 'DELETE' }, await bearer(owner)));
    const finalized = await send(`/v2/sites/${domain}/deployments/${id}/finalize`, { method: 'POST' }, as);
    expect(finalized.status).toBe(403);
    expect((await problemOf(finalized)).detail).toMatch(/owned by another user/);
  });

  it('refuses the owner as a member and an unknown role with a clear problem, and changes nothing', async () => {
    const domain = 'bad.members.example';
    await siteWithMembers(domain);
    const as = await bearer(owner);
    const self = await send(`/v2/sites/${domain}/members/${encodeURIComponent(owner)}`, json('PUT', { role: 'viewer' }), as);
    expect(self.status).toBe(400);
    expect((await problemOf(self)).detail).toMatch(/owner is not added as a member/);
    const unknown = await send(`/v2/sites/${domain}/members/${encodeURIComponent('github|newcomer')}`, json('PUT', { role: 'admin' }), as);
    expect(unknown.status).toBe(400);
    expect((await problemOf(unknown)).detail).toMatch(/"deployer" or "viewer"}, not "admin"/);
    const members = await (await send(`/v2/sites/${domain}/members`, {}, as)).json<SiteMembers>();
    expect(members.members.map((member) => [member.userId, member.role])).toEqual([
      [deployer, 'deployer'],
      [viewer, 'viewer'],
    ]);
    expect((await send(`/v2/sites/${domain}/members/${encodeURIComponent('github|nobody')}`, { method: 'DELETE' }, as)).status).toBe(404);
  });

  it('forgets members and trust when the site is unpublished: whoever claims the domain next starts alone', async () => {
    const domain = 'reclaimed.members.example';
    await siteWithMembers(domain);
    await ok(await send(`/v2/sites/${domain}`, { method: 'DELETE' }, await bearer(owner)));
    const next = await bearer('github|member-next-owner');
    await ok(await send(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'mine' }) }, next));
    expect((await send(`/v2/sites/${domain}/info`, {}, await bearer(deployer))).status).toBe(403);
    expect((await (await send(`/v2/sites/${domain}/members`, {}, next)).json<SiteMembers>()).members).toEqual([]);
    expect((await send(`/v2/sites/${domain}/trust/github`, {}, next)).status).toBe(404);
  });
});

describe('trust policies', () => {
  it('stores one policy per site, shown to its owner, and refuses a malformed repository or workflow', async () => {
    const domain = 'policy.members.example';
    await siteWithMembers(domain);
    const as = await bearer(owner);
    const stored = await (await ok(await send(`/v2/sites/${domain}/trust/github`, {}, as))).json<GithubTrustPolicy>();
    expect(stored).toMatchObject({ ...trustPolicy, domain, ref: null, environment: null });
    const bare = await ok(await send(`/v2/sites/${domain}/trust/github`, json('PUT', { ...trustPolicy, workflow: 'release.yml', environment: 'production' }), as));
    expect(await bare.json()).toMatchObject({ workflow: '.github/workflows/release.yml', environment: 'production' });
    for (const [field, value, message] of [
      ['repository', 'not a repository', /"repository" is "<owner>\/<name>"/],
      ['repository', 'octo-org/..', /"repository"/],
      ['workflow', '../../etc/passwd', /"workflow" is the workflow file/],
      ['workflow', '.github/workflows/deploy.sh', /"workflow"/],
      ['repositoryId', 'abc', /"repositoryId" is GitHub's numeric id/],
    ] as const) {
      const refused = await send(`/v2/sites/${domain}/trust/github`, json('PUT', { ...trustPolicy, [field]: value }), as);
      expect(refused.status, `${field}: ${value}`).toBe(400);
      expect((await problemOf(refused)).detail).toMatch(message);
    }
    const after = await (await send(`/v2/sites/${domain}/trust/github`, {}, as)).json<GithubTrustPolicy>();
    expect(after).toMatchObject({ workflow: '.github/workflows/release.yml', environment: 'production' });
  });
});
