import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { CreatedApiToken, DeployResult, Identity, SiteInfo, UserSuspension } from '../../src/common/api-types';
import { serveSite } from '../../src/serving/serve';
import { Subscriber } from '../events/subscriber';
import { authorized, call, deploy, deployForm, problemOf, type TokenOptions } from '../support/client';
import { keepDeployments, sha256Hex } from '../support/deployments';

/**
 * An operator's suspension of a user (PUT/DELETE /v2/users/<userId>/suspension): a site
 * suspension alone is escaped by deploying the same content under another name, or by claiming
 * the name again once an operator unpublishes it. test/api/suspension.test.ts holds a site's.
 */
const operator: TokenOptions = { user: 'github|operator', scope: 'admin' };
const json = (method: string, body: unknown, type = 'application/json'): RequestInit => ({ method, headers: { 'content-type': type }, body: JSON.stringify(body) });
const path = (userId: string) => `/v2/users/${encodeURIComponent(userId)}/suspension`;
const suspendUser = (userId: string, reason: unknown, as: TokenOptions = operator) => authorized(path(userId), json('PUT', { reason }), as);
const resumeUser = (userId: string, as: TokenOptions = operator) => authorized(path(userId), { method: 'DELETE' }, as);
const page = (host: string, route = '/') => call(`http://${host}${route}`);

async function deployedSite(domain: string, as: TokenOptions): Promise<DeployResult> {
  await keepDeployments(domain, 20, 30);
  const response = await deploy(domain, { 'index.html': `<h1>${domain}</h1>` }, undefined, as);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** Every write a user can make to their own `domain` (`deploymentId` one of its deployments), and the claims of new domains. */
async function everyWrite(domain: string, deploymentId: string, as: TokenOptions): Promise<Response[]> {
  return [
    await deploy(domain, { 'index.html': 'replaced' }, undefined, as),
    await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'preview' }) }, as),
    await authorized(`/v2/sites/${domain}/deployments`, json('POST', { files: { 'index.html': await sha256Hex('incremental') } }), as),
    await authorized(`/v2/sites/${domain}/files/new.txt`, { method: 'PUT', body: 'new' }, as),
    await authorized(`/v2/sites/${domain}/files/index.html`, { method: 'DELETE' }, as),
    await authorized(`/v2/sites/${domain}/configuration`, json('PUT', {}), as),
    await authorized(`/v2/sites/${domain}/configuration`, json('PATCH', { fallback: {} }, 'application/merge-patch+json'), as),
    await authorized(`/v2/sites/${domain}/info`, json('PATCH', { metadata: { a: 'b' } }, 'application/merge-patch+json'), as),
    await authorized(`/v2/sites/${domain}/deployments/${deploymentId}/activate`, { method: 'POST' }, as),
    await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, as),
    // The escape a site suspension left open: the same content under another name.
    await deploy(`elsewhere-${domain}`, { 'index.html': 'the same content' }, undefined, as),
    await authorized(`/v2/sites/again-${domain}/deployments`, json('POST', { files: {} }), as),
  ];
}

describe('a suspended user', () => {
  it('has every site answer 451 (domains and previews), claims and changes nothing, reads why, and gets everything back when resumed', async () => {
    const user: TokenOptions = { user: 'github|suspended-user' };
    const [first, second] = [await deployedSite('user-one.example', user), await deployedSite('user-two.example', user)];
    const bystander = await deployedSite('bystander.example', { user: 'github|bystander' });
    const hosts = ['user-one.example', 'user-two.example', `${first.deploymentId}.preview.localhost`, `${second.deploymentId}.preview.localhost`];
    const before = await Promise.all(hosts.map(async (host) => (await page(host)).text()));
    const events = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));

    const suspended = await suspendUser('github|suspended-user', '  Phishing kits on several sites (case 7012)  ');
    expect(suspended.status).toBe(201);
    const suspension = await suspended.json<UserSuspension>();
    expect(suspension).toEqual({
      userId: 'github|suspended-user',
      reason: 'Phishing kits on several sites (case 7012)',
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
      domains: ['user-one.example', 'user-two.example'],
    });
    const held = { reason: suspension.reason, since: suspension.since };
    expect(await (await authorized(path('github|suspended-user'), {}, operator)).json()).toEqual(suspension);

    for (const host of hosts) {
      const answer = await page(host);
      expect(answer.status, host).toBe(451);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(await answer.text()).not.toContain('Phishing');
    }
    expect((await page('bystander.example')).status).toBe(200);
    expect((await page(`${bystander.deploymentId}.preview.localhost`)).status).toBe(200);

    // Reads of their own: why, in info and whoami.
    const info = await authorized('/v2/sites/user-one.example/info', {}, user);
    expect(info.status).toBe(200);
    expect(await info.json<SiteInfo>()).toMatchObject({ suspension: null, userSuspension: held });
    expect(await (await authorized('/v2/whoami', {}, user)).json<Identity>()).toMatchObject({ userId: 'github|suspended-user', suspension: held });
    expect(await (await authorized('/v2/whoami', {}, { user: 'github|bystander' })).json<Identity>()).not.toHaveProperty('suspension');

    for (const refused of await everyWrite('user-one.example', first.deploymentId, user)) {
      expect(refused.status, refused.url).toBe(403);
      expect(await problemOf(refused)).toMatchObject({
        type: '/problems/user-suspended',
        reason: held.reason,
        since: held.since,
        detail: expect.stringContaining('Reason: Phishing kits on several sites (case 7012)'),
      });
    }
    expect((await authorized('/v2/sites/elsewhere-user-one.example/info', {}, user)).status).toBe(404);

    expect((await resumeUser('github|suspended-user')).status).toBe(200);
    const after = await Promise.all(hosts.map(async (host) => (await page(host)).text()));
    expect(after).toEqual(before);
    expect(await (await authorized('/v2/sites/user-one.example/info', {}, user)).json<SiteInfo>()).toMatchObject({ userSuspension: null });
    expect((await deploy('user-one.example', { 'index.html': 'back' }, undefined, user)).status).toBe(200);
    expect((await deploy('elsewhere-user-one.example', { 'index.html': 'new' }, undefined, user)).status).toBe(200);

    const types = ['user-suspend', 'user-resume'];
    await events.until(() => types.every((type) => events.events.some((event) => event.event === type)));
    await events.close();
    const userEvents = events.events.filter((event) => types.includes(event.event ?? '')).map((event) => JSON.parse(event.data));
    expect(userEvents).toEqual([
      { type: 'user-suspend', userId: 'github|suspended-user', reason: held.reason, domains: ['user-one.example', 'user-two.example'] },
      { type: 'user-resume', userId: 'github|suspended-user', domains: ['user-one.example', 'user-two.example'] },
    ]);
  });

  it('changes nothing on a site they are a deployer of either, with a JWT or a token limited to it, and still reads it', async () => {
    const owner: TokenOptions = { user: 'github|members-owner' };
    const member: TokenOptions = { user: 'github|suspended-member' };
    const site = await deployedSite('member-of.example', owner);
    expect((await authorized(`/v2/sites/member-of.example/members/${encodeURIComponent('github|suspended-member')}`, json('PUT', { role: 'deployer' }), owner)).status).toBe(201);
    const made = await authorized('/v2/tokens', json('POST', { name: 'CI', scopes: ['deploy'], sites: ['member-of.example'] }), member);
    const siteToken = (await made.json<CreatedApiToken>()).token;
    const before = await (await page('member-of.example')).text();
    expect((await suspendUser('github|suspended-member', 'Stolen account')).status).toBe(201);

    const withToken = (path: string, init: RequestInit) => call(path, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: `Bearer ${siteToken}` } });
    const writes = [
      ...(await everyWrite('member-of.example', site.deploymentId, member)).slice(0, 9),
      await withToken('/v2/sites/member-of.example', { method: 'PUT', body: deployForm({ 'index.html': 'through the token' }) }),
      await withToken('/v2/sites/member-of.example/files/new.txt', { method: 'PUT', body: 'new' }),
    ];
    for (const refused of writes) {
      expect(refused.status, refused.url).toBe(403);
      expect(await problemOf(refused)).toMatchObject({ type: '/problems/user-suspended', reason: 'Stolen account' });
    }
    expect((await authorized('/v2/sites/member-of.example/info', {}, member)).status).toBe(200);
    expect(await (await page('member-of.example')).text()).toBe(before);
    expect((await resumeUser('github|suspended-member')).status).toBe(200);
    expect((await deploy('member-of.example', { 'index.html': 'back' }, undefined, member)).status).toBe(200);
  });

  it('reaches every location before the answer, carried by the site record serving reads anyway', async () => {
    const user: TokenOptions = { user: 'github|suspended-everywhere' };
    const domain = 'user-everywhere.example';
    await deployedSite(domain, user);
    const locations = await Promise.all(['location-a', 'location-b', 'location-c'].map((name) => caches.open(name)));
    const servedAt = async (location: Cache) => {
      const ctx = createExecutionContext();
      const url = new URL(`http://${domain}/`);
      const response = await serveSite(new Request(url), url, env, ctx, domain, location);
      await response.body?.cancel();
      await waitOnExecutionContext(ctx);
      return response.status;
    };
    for (const location of locations) expect(await servedAt(location)).toBe(200);
    expect((await suspendUser('github|suspended-everywhere', 'Malware')).status).toBe(201);
    for (const location of locations) expect(await servedAt(location)).toBe(451);
    expect((await resumeUser('github|suspended-everywhere')).status).toBe(200);
    for (const location of locations) expect(await servedAt(location)).toBe(200);
  });

  it('takes a new reason keeping when it began, the same reason again changes nothing; a user with no site can be suspended; GET says whether one is', async () => {
    const first = await suspendUser('github|no-sites', 'Spam');
    expect(first.status).toBe(201);
    const { since } = await first.json<UserSuspension>();
    const again = await suspendUser('github|no-sites', 'Spam');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ userId: 'github|no-sites', reason: 'Spam', since, domains: [] });
    const changed = await suspendUser('github|no-sites', 'Spam and fraud');
    expect(await changed.json()).toMatchObject({ reason: 'Spam and fraud', since });
    const claim = await deploy('no-sites-claim.example', { 'index.html': 'x' }, undefined, { user: 'github|no-sites' });
    expect(claim.status).toBe(403);
    expect(await problemOf(claim)).toMatchObject({ type: '/problems/user-suspended', reason: 'Spam and fraud', since });
    const seen = await authorized(path('github|no-sites'), {}, operator);
    expect(seen.status).toBe(200);
    expect(await seen.json()).toEqual({ userId: 'github|no-sites', reason: 'Spam and fraud', since, domains: [] });
    expect((await resumeUser('github|no-sites')).status).toBe(200);
    expect(await problemOf(await authorized(path('github|no-sites'), {}, operator))).toMatchObject({ status: 404, detail: 'The user github|no-sites is not suspended.' });
    const notSuspended = await resumeUser('github|no-sites');
    expect(notSuspended.status).toBe(404);
    expect(await problemOf(notSuspended)).toMatchObject({ detail: 'The user github|no-sites is not suspended.' });
    expect((await resumeUser('github|never-suspended')).status).toBe(404);
  });
});

describe('user suspensions', () => {
  it('are for operators alone: deploy, global_read and the user get 403 insufficient_scope; no token 401', async () => {
    for (const as of [{ user: 'github|victim' }, { user: 'github|reader', scope: 'global_read' }, { user: 'github|both', scope: 'deploy global_read' }]) {
      for (const attempt of [suspendUser('github|victim', 'Mine', as), resumeUser('github|victim', as), authorized(path('github|victim'), {}, as)]) {
        const refused = await attempt;
        expect(refused.status).toBe(403);
        expect(await problemOf(refused)).toMatchObject({ type: '/problems/insufficient-scope' });
      }
    }
    expect((await call(path('github|victim'), json('PUT', { reason: 'x' }))).status).toBe(401);
    expect(await (await authorized('/v2/whoami', {}, { user: 'github|victim' })).json<Identity>()).not.toHaveProperty('suspension');
  });

  it.each<[string, unknown, number, Record<string, unknown>]>([
    ['a reason is required', {}, 400, { errors: [{ pointer: '/reason', message: 'must be a string that is not empty' }] }],
    ['a reason has no escape sequence', { reason: 'Spam\u001b]0;owned\u0007' }, 400, { errors: [{ pointer: '/reason', message: 'holds the control character U+001B' }] }],
    ['a reason has no lone CR', { reason: 'Spam\rNothing to see' }, 400, { errors: [{ pointer: '/reason', message: 'holds the control character U+000D' }] }],
    ['a reason has at most 1,000 characters', { reason: '€'.repeat(1001) }, 413, { limit: 'MAX_SUSPENSION_REASON_LENGTH', value: 1000 }],
  ])('refuse a bad suspension: %s', async (_, body, status, problem) => {
    const refused = await authorized(path('github|input'), json('PUT', body), operator);
    expect(refused.status).toBe(status);
    expect(await problemOf(refused)).toMatchObject({ status, ...problem });
    expect(await (await authorized('/v2/whoami', {}, { user: 'github|input' })).json<Identity>()).not.toHaveProperty('suspension');
  });
});
