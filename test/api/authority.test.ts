/**
 * The authority table (src/auth/authority.ts) walked through the Worker and its coordinators: each
 * caller it names, with a real credential of that kind (a JWT, a site token made through
 * `POST /v2/tokens`, a CI identity's token made as `POST /v2/oidc/github` makes it), against one
 * request of each route, expecting the table's answer. A route the table gains without a request
 * here fails the walk.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { type Caller, callers, mayCall, routeRules } from '../../src/auth/authority';
import { mintCiToken } from '../../src/auth/ci-tokens';
import type { CreatedApiToken, SiteMembers } from '../../src/common/api-types';
import { deployForm, token } from '../support/client';
import { manifestOf } from '../support/incremental';
import { json, ok, send, siteWithMembers, trustPolicy } from '../support/site-members';

const owner = 'github|authority-owner';
const deployer = 'github|authority-deployer';
const viewer = 'github|authority-viewer';
const stranger = 'github|authority-stranger';
const crew = { owner, deployer, viewer };
const job = { repository: 'octo-org/site', repositoryId: '101', workflow: '.github/workflows/deploy.yml', ref: 'refs/heads/main', sha: 'a1b2c3', runId: '7', runAttempt: '1', actor: 'octocat', environment: null };





const userOf = (caller: Caller): string => (caller.relation === null ? stranger : { owner, deployer, viewer }[caller.relation]);

/** A credential of `caller`'s kind, for `domain` (or `elsewhere`, a site of the owner's too). */
async function credentialOf(caller: Caller, domain: string, elsewhere: string): Promise<string> {
  const user = userOf(caller);
  if (caller.credential === 'user') return token({ user, scope: caller.scope });
  if (caller.credential === 'ci') return (await mintCiToken(env.DB, user, [domain], job, Date.now())).token;
  const request = { name: 'walk', scopes: [caller.scope], sites: [caller.elsewhere ? elsewhere : domain], role: caller.tokenRole };
  return (await (await ok(await send('/v2/tokens', json('POST', request), await token({ user })))).json<CreatedApiToken>()).token;
}

/** One request of each route of the table, in an order each can run after the ones before (the unpublish last); a token made asks for the caller's `scope`. */
async function requests(domain: string, deploymentId: string, scope: string, free: string): Promise<Record<string, [string, RequestInit]>> {
  const third = encodeURIComponent('github|authority-third');
  const stream = { headers: { accept: 'text/event-stream' } };
  return {
    'GET /v2/sites/<domain>/info': [`/v2/sites/${domain}/info`, {}],
    'GET /v2/sites/<domain>/configuration': [`/v2/sites/${domain}/configuration`, {}],
    'GET /v2/sites/<domain>/files/<dir>/': [`/v2/sites/${domain}/files/`, {}],
    'GET /v2/sites/<domain>/deployments': [`/v2/sites/${domain}/deployments`, {}],
    'GET /v2/sites/<domain>/deployments/<id>': [`/v2/sites/${domain}/deployments/${deploymentId}`, {}],
    'GET /v2/sites/<domain>/deployments/<id>/rules': [`/v2/sites/${domain}/deployments/${deploymentId}/rules`, {}],
    'GET /v2/sites/<domain>/members': [`/v2/sites/${domain}/members`, {}],
    'GET /v2/sites/<domain>/events': [`/v2/sites/${domain}/events`, stream],
    'GET /v2/sites/<domain>/trust/github': [`/v2/sites/${domain}/trust/github`, {}],
    'GET /v2/sites/<domain>/analytics': [`/v2/sites/${domain}/analytics`, {}],
    'GET /v2/sites/<domain>/protection': [`/v2/sites/${domain}/protection`, {}],
    'POST /v2/sites/<domain>/share': [`/v2/sites/${domain}/share`, json('POST', { expiresIn: 60 })],
    'POST /v2/sites/<domain>/deployments/<id>/activate': [`/v2/sites/${domain}/deployments/${deploymentId}/activate`, { method: 'POST' }],
    'PUT /v2/sites/<domain>/configuration': [`/v2/sites/${domain}/configuration`, json('PUT', {})],
    'PATCH /v2/sites/<domain>/configuration': [`/v2/sites/${domain}/configuration`, json('PATCH', {}, 'application/merge-patch+json')],
    'PUT /v2/sites/<domain>/info': [`/v2/sites/${domain}/info`, json('PUT', { metadata: {} })],
    'PATCH /v2/sites/<domain>/info': [`/v2/sites/${domain}/info`, json('PATCH', { metadata: { by: 'x' } }, 'application/merge-patch+json')],
    'PUT /v2/sites/<domain>/files/<path>': [`/v2/sites/${domain}/files/new.html`, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'new' }],
    'DELETE /v2/sites/<domain>/files/<path>': [`/v2/sites/${domain}/files/new.html`, { method: 'DELETE' }],
    'PUT /v2/sites/<domain>': [`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'v2' }) }],
    'PUT /v2/sites/<domain>?preview=true': [`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'v3' }) }],
    'POST /v2/sites/<domain>/deployments': [`/v2/sites/${domain}/deployments`, json('POST', { files: await manifestOf({ 'index.html': 'v1' }), finalize: 'live' })],
    'PUT /v2/sites/<free domain>': [`/v2/sites/${free}`, { method: 'PUT', body: deployForm({ 'index.html': 'claimed' }) }],
    'PUT /v2/sites/<domain>/members/<userId>': [`/v2/sites/${domain}/members/${third}`, json('PUT', { role: 'viewer' })],
    'DELETE /v2/sites/<domain>/members/<userId>': [`/v2/sites/${domain}/members/${third}`, { method: 'DELETE' }],
    'PUT /v2/sites/<domain>/trust/github': [`/v2/sites/${domain}/trust/github`, json('PUT', { ...trustPolicy, ref: 'refs/heads/main' })],
    'DELETE /v2/sites/<domain>/trust/github': [`/v2/sites/${domain}/trust/github`, { method: 'DELETE' }],
    'PUT /v2/sites/<domain>/protection': [`/v2/sites/${domain}/protection`, json('PUT', { previews: 'members', site: 'public' })],
    'DELETE /v2/sites/<domain>/share': [`/v2/sites/${domain}/share`, { method: 'DELETE' }],
    'PUT /v2/sites/<domain>/suspension': [`/v2/sites/${domain}/suspension`, json('PUT', { reason: 'walking the table' })],
    'DELETE /v2/sites/<domain>/suspension': [`/v2/sites/${domain}/suspension`, { method: 'DELETE' }],
    'POST /v2/sites/<domain>/dead-letters/replay': [`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }],
    'POST /v2/sites/<domain>/reconcile': [`/v2/sites/${domain}/reconcile`, { method: 'POST' }],
    'GET /v2/tokens': ['/v2/tokens', {}],
    'POST /v2/tokens': ['/v2/tokens', json('POST', { name: 'made while walking', scopes: [scope] })],
    'DELETE /v2/tokens/<id>': ['/v2/tokens/00000000-0000-4000-8000-000000000000', { method: 'DELETE' }],
    'GET /v2/user/events': ['/v2/user/events', stream],
    'DELETE /v2/sites/<domain>': [`/v2/sites/${domain}`, { method: 'DELETE' }],
  };
}

/** "yes" for any answer but 401 and 403 (a 404 for a token id no one holds is still the route's own answer), as the table writes it. */
async function outcome(response: Response): Promise<string> {
  await response.body?.cancel();
  return response.status === 403 || response.status === 401 ? String(response.status) : 'yes';
}

describe('the authority table, walked', () => {
  it.each(callers.map((caller, index) => [caller.name, caller, index] as const))('%s', async (_, caller, index) => {
    const domain = `walk-${index}.authority.example`;
    const elsewhere = `elsewhere-${index}.authority.example`;
    await ok(await send(`/v2/sites/${elsewhere}`, { method: 'PUT', body: deployForm({ 'index.html': 'x' }) }, await token({ user: owner })));
    const deploymentId = await siteWithMembers(domain, crew);
    const secret = await credentialOf(caller, domain, elsewhere);
    const each = await requests(domain, deploymentId, caller.scope, `free-${index}.authority.example`);
    const answers: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const rule of routeRules) {
      expect(each[rule.route], `a request of ${rule.route}`).toBeDefined();
      const [path, init] = each[rule.route]!;
      answers[rule.route] = await outcome(await send(path, init, secret));
      expected[rule.route] = mayCall(caller, rule) ? 'yes' : '403';
    }
    expect(answers).toEqual(expected);
    if (!routeRules.some((rule) => ['change', 'own'].includes(rule.action) && mayCall(caller, rule))) {
      // Refused, and nothing changed: the owner still sees the site with its members as they were.
      const as = await token({ user: owner });
      const info = await (await ok(await send(`/v2/sites/${domain}/info`, {}, as))).json<{ metadata: Record<string, string> }>();
      expect(info.metadata).toEqual({});
      const members = await (await send(`/v2/sites/${domain}/members`, {}, as)).json<SiteMembers>();
      expect(members.members.map((member) => member.userId)).toEqual([deployer, viewer]);
    }
  });
});
