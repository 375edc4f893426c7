import { describe, expect, it } from 'vitest';
import type { GithubTrustPolicy, Site, SiteMembers } from '../../src/common/api-types';
import { deployForm, problemOf, token } from '../support/client';
import { manifestOf } from '../support/incremental';
import { json, ok, send, siteWithMembers, trustPolicy } from '../support/site-members';

/**
 * Site members through the Worker and its coordinators; test/api/authority.test.ts walks the
 * access rule's table, each caller against each route.
 */

const owner = 'github|member-owner';
const deployer = 'github|member-deployer';
const viewer = 'github|member-viewer';
const crew = { owner, deployer, viewer };


async function bearer(user: string, scope = 'deploy'): Promise<string> {
  return token({ user, scope });
}




describe('members', () => {
  it('lists the owner and the members; a member sees the site in GET /v2/sites with its role; removal ends its access', async () => {
    const domain = 'listed.members.example';
    await siteWithMembers(domain, crew);
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
    await siteWithMembers(domain, crew);
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
    await siteWithMembers(domain, crew);
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
    await siteWithMembers(domain, crew);
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
    await siteWithMembers(domain, crew);
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
    await siteWithMembers(domain, crew);
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
