import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GithubTrustPolicy, Site, SiteMembers } from '../../../src/common/api-types';
import { type OidcIssuer, type TrustingService, startTrustingService } from '../support/oidc-issuer';
import { type Service, getFromSite, token } from '../support/service';
import { runCli } from './run';

/**
 * `sitehost members add|list|remove`, `sitehost trust github|show|remove`, and `sitehost deploy`
 * in a GitHub Actions job with no stored secret: the real CLI against the running service, whose
 * GITHUB_OIDC_ISSUER is a real issuer on loopback that also plays the runner's ID token endpoint.
 */

let running: TrustingService | undefined;
let service: Service;
let issuer: OidcIssuer;
let work: string;
const owner = 'github|cli-members-owner';
const deployer = 'github|cli-members-deployer';

function as(bearer: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: bearer, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

/** A GitHub Actions job's environment: the origin, the runner's ID token endpoint, no token. */
function actionsJob(): Record<string, string> {
  return {
    SITEHOST_ORIGIN: service.origin,
    SITEHOST_TOKEN: '',
    ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken,
    XDG_CONFIG_HOME: join(work, 'no-login'),
    XDG_CACHE_HOME: join(work, 'cache'),
  };
}

async function site(name: string, body: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'index.html'), body);
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-members-'));
  running = await startTrustingService();
  ({ service, issuer } = running);
}, 120_000);

afterAll(async () => {
  await running?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sitehost members', () => {
  it('adds a deployer who then deploys and sees the site with their role, lists, and removes them', async () => {
    const domain = 'cli-members.example';
    const ownerEnv = as(await token(service, owner));
    const deployerEnv = as(await token(service, deployer));
    expect((await runCli(['deploy', await site('members-v1', '<h1>v1</h1>'), '--domain', domain], { env: ownerEnv })).code).toBe(0);

    const added = await runCli(['members', 'add', domain, deployer, '--role', 'deployer'], { env: ownerEnv });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`${deployer} is a deployer of ${domain}`);

    const deployed = await runCli(['deploy', await site('members-v2', '<h1>v2 by the deployer</h1>'), '--domain', domain], { env: deployerEnv });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect((await getFromSite(service, domain, '/')).body).toContain('v2 by the deployer');
    const sites = JSON.parse((await runCli(['sites', '--json'], { env: deployerEnv })).stdout) as Site[];
    expect(sites).toContainEqual(expect.objectContaining({ domain, userId: owner, role: 'deployer' }));

    const listed = await runCli(['members', 'list', domain], { env: deployerEnv });
    expect(listed.stdout).toMatch(/USER\s+ROLE\s+SINCE/);
    expect(listed.stdout).toMatch(new RegExp(`${owner.replace('|', '\\|')}\\s+owner`));
    expect(listed.stdout).toMatch(new RegExp(`${deployer.replace('|', '\\|')}\\s+deployer`));

    // A deployer does not manage members, nor unpublish.
    const refused = await runCli(['members', 'add', domain, 'github|someone', '--role', 'viewer'], { env: deployerEnv });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/only its owner may/);

    expect((await runCli(['members', 'remove', domain, deployer], { env: ownerEnv })).code).toBe(0);
    const json = JSON.parse((await runCli(['members', 'list', domain, '--json'], { env: ownerEnv })).stdout) as SiteMembers;
    expect(json.members).toEqual([]);
    expect((await runCli(['deploy', await site('members-v3', 'v3'), '--domain', domain], { env: deployerEnv })).code).toBe(5);
  });

  it('refuses an unknown role before asking, and the owner as a member with the service’s problem', async () => {
    const domain = 'cli-members-bad.example';
    const ownerEnv = as(await token(service, owner));
    expect((await runCli(['deploy', await site('bad', 'x'), '--domain', domain], { env: ownerEnv })).code).toBe(0);
    const role = await runCli(['members', 'add', domain, deployer, '--role', 'admin'], { env: ownerEnv });
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/deployer or viewer/);
    const self = await runCli(['members', 'add', domain, owner, '--role', 'viewer'], { env: ownerEnv });
    // The service refused it (400): exit 7, where 2 is what the CLI finds wrong before asking.
    expect(self.code).toBe(7);
    expect(self.stderr).toMatch(/owner is not added as a member/);
  });
});

describe('sitehost trust, and sitehost deploy in GitHub Actions', () => {
  it('a trusted workflow’s job deploys with no SITEHOST_TOKEN; another workflow is refused naming the claim', async () => {
    const domain = 'cli-actions.example';
    const ownerEnv = as(await token(service, owner));
    expect((await runCli(['deploy', await site('actions-v1', 'v1'), '--domain', domain], { env: ownerEnv })).code).toBe(0);

    // Before any policy: the job's token matches none.
    const untrusted = await runCli(['deploy', await site('actions-early', 'early'), '--domain', domain], { env: actionsJob() });
    expect(untrusted.code).toBe(5);
    expect(untrusted.stderr).toMatch(/"repository_id"/);

    const trusted = await runCli(
      ['trust', 'github', domain, '--repository', 'octo-org/site', '--workflow', 'deploy.yml', '--repository-id', '101', '--repository-owner-id', '202', '--ref', 'refs/heads/main'],
      { env: ownerEnv },
    );
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('octo-org/site (id 101), workflow .github/workflows/deploy.yml on refs/heads/main');
    const shown = JSON.parse((await runCli(['trust', 'show', domain, '--json'], { env: ownerEnv })).stdout) as GithubTrustPolicy;
    expect(shown).toMatchObject({ domain, repository: 'octo-org/site', repositoryId: '101', repositoryOwnerId: '202', workflow: '.github/workflows/deploy.yml', ref: 'refs/heads/main', environment: null });

    const deployed = await runCli(['deploy', await site('actions-v2', '<h1>from Actions</h1>'), '--domain', domain, '--prod', '--message', 'abc123'], { env: actionsJob() });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stderr).toContain(`Deploying as GitHub Actions: a token for ${domain}`);
    expect((await getFromSite(service, domain, '/')).body).toContain('from Actions');
    // The listing says which run made it, from the job's verified claims.
    const listed = await runCli(['deployments', domain], { env: ownerEnv });
    expect(listed.stdout).toMatch(/octo-org\/site run 1 \(\.github\/workflows\/deploy\.yml refs\/heads\/main by octocat\)/);

    // Another workflow file of the same repository is not trusted.
    issuer.job = { ...issuer.job, job_workflow_ref: 'octo-org/site/.github/workflows/other.yml@refs/heads/main' };
    try {
      const other = await runCli(['deploy', await site('actions-v3', 'v3'), '--domain', domain], { env: actionsJob() });
      expect(other.code).toBe(5);
      expect(other.stderr).toMatch(/"job_workflow_ref"/);
    } finally {
      issuer.job = { ...issuer.job, job_workflow_ref: 'octo-org/site/.github/workflows/deploy.yml@refs/heads/main' };
    }

    expect((await runCli(['trust', 'remove', domain], { env: ownerEnv })).code).toBe(0);
    expect((await runCli(['trust', 'show', domain], { env: ownerEnv })).code).toBe(4);
    expect((await runCli(['deploy', await site('actions-v4', 'v4'), '--domain', domain], { env: actionsJob() })).code).toBe(5);
  });

  it('refuses a malformed repository with the service’s problem, and stores nothing', async () => {
    const domain = 'cli-actions-bad.example';
    const ownerEnv = as(await token(service, owner));
    expect((await runCli(['deploy', await site('bad-trust', 'x'), '--domain', domain], { env: ownerEnv })).code).toBe(0);
    const bad = await runCli(['trust', 'github', domain, '--repository', 'not a repo', '--workflow', 'deploy.yml', '--repository-id', '1', '--repository-owner-id', '2'], { env: ownerEnv });
    expect(bad.code).toBe(7);
    expect(bad.stderr).toMatch(/"repository" is "<owner>\/<name>"/);
    expect((await runCli(['trust', 'show', domain], { env: ownerEnv })).code).toBe(4);
  });
});
