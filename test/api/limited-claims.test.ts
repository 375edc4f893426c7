/**
 * A credential limited to sites (a site token, whatever its role, or a CI identity) never claims
 * a domain (docs/design.md, "Authority"): a first deploy makes its user the owner, which no such
 * credential was given. Its site unpublished while it lives, the domain is free to anyone's own
 * credentials, not to it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mintCiToken } from '../../src/auth/ci-tokens';
import type { CreatedApiToken } from '../../src/common/api-types';
import { unlabelled } from '../../src/content/label-checks';
import { call, deploy, deployForm, problemOf, token } from '../support/client';
import { coordinatorOf } from '../support/deployments';
import { manifestOf } from '../support/incremental';

const owner = 'github|limited-claims-owner';
const job = { repository: 'octo-org/site', repositoryId: '101', workflow: '.github/workflows/deploy.yml', ref: 'refs/heads/main', sha: 'a1b2c3', runId: '7', runAttempt: '1', actor: 'octocat', environment: null };

function send(path: string, init: RequestInit, secret: string): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${secret}`);
  return call(path, { ...init, headers });
}

async function siteToken(domain: string, role: 'owner' | 'deployer'): Promise<string> {
  const made = await send('/v2/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', scopes: ['deploy'], sites: [domain], role }) }, await token({ user: owner }));
  expect(made.status).toBe(201);
  return (await made.json<CreatedApiToken>()).token;
}

const credentials = {
  'a CI identity': async (domain: string) => (await mintCiToken(env.DB, owner, [domain], job, Date.now())).token,
  'a site token of role owner': (domain: string) => siteToken(domain, 'owner'),
  'a site token (deployer)': (domain: string) => siteToken(domain, 'deployer'),
};

const deploys = {
  'a deploy': (domain: string) => [`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'mine now' }) }] as const,
  'a preview': (domain: string) => [`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'mine now' }) }] as const,
  'an incremental deploy': async (domain: string) =>
    [`/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf({ 'index.html': 'mine now' }) }) }] as const,
};

describe('a credential limited to sites, its site unpublished', () => {
  const cases = Object.keys(credentials).flatMap((credential) => Object.keys(deploys).map((how) => [credential, how] as const));
  it.each(cases)('%s cannot claim the freed domain with %s', async (credential, how) => {
    const domain = `${credential}-${how}`.replace(/[^a-z]+/g, '-') + '.limited-claims.example';
    expect((await deploy(domain, { 'index.html': 'v1' }, undefined, { user: owner })).status).toBe(200);
    const secret = await credentials[credential as keyof typeof credentials](domain);
    expect((await send(`/v2/sites/${domain}`, { method: 'DELETE' }, await token({ user: owner }))).status).toBe(200);

    const [path, init] = await deploys[how as keyof typeof deploys](domain);
    const refused = await send(path, init, secret);
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).detail).toContain('cannot claim');
    // Nothing was claimed: the domain is still free, and its former owner claims it again with their own credentials.
    expect((await send(`/v2/sites/${domain}/info`, {}, await token({ user: owner }))).status).toBe(404);
    expect((await deploy(domain, { 'index.html': 'v2' }, undefined, { user: owner })).status).toBe(200);
  });

  it('is refused by the coordinator too, as the claim commits (the Worker checked while the site still stood)', async () => {
    const domain = 'race.limited-claims.example';
    const outcome = await coordinatorOf(domain).deploy({ domain, userId: owner, claims: false, labels: unlabelled('api'), configuration: {} });
    expect(outcome).toMatchObject({ ok: false, problem: { kind: 'forbidden', detail: expect.stringContaining('cannot claim') } });
    expect((await call(`/v2/sites/${domain}/info`, { headers: { authorization: `Bearer ${await token({ user: owner })}` } })).status).toBe(404);
  });
});
