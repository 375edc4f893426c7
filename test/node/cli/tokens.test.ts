import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiToken, CreatedApiToken } from '../../../src/common/api-types';
import { type RunningService, sharedService, token } from '../support/service';
import { runCli } from './run';

/**
 * `sitehost tokens create|list|revoke` and `sitehost logout --everywhere`, black-box: the real CLI
 * against the real service under `wrangler dev`.
 */

let service: RunningService;
let work: string;

/** A CI job's environment: origin and token from variables, no stored login. */
function as(bearer: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: bearer, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

async function site(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'index.html'), `<h1>${name}</h1>`);
  return dir;
}

/** A year-long self-issued token, as `npm run token -- --ttl 1y` prints: the kind that leaks. */
function yearLong(user: string): Promise<string> {
  return new SignJWT({ scope: 'deploy' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setIssuer('sitehost')
    .setAudience('sitehost')
    .setIssuedAt()
    .setExpirationTime('365d')
    .sign(new TextEncoder().encode(service.secret));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-tokens-'));
  service = await sharedService();
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sitehost tokens', () => {
  it('creates a token printed once, which deploys, is listed with its last use, and once revoked is refused by the running service', async () => {
    const login = as(await token(service, 'github|cli-token-user'));
    const created = await runCli(['tokens', 'create', '--name', 'CI of cli-token.example', '--expires', '30d'], { env: login });
    expect(created.code, created.stderr).toBe(0);
    // Standard output is the token alone, so `T=$(sitehost tokens create …)` holds it.
    expect(created.stdout).toMatch(/^sitehost_[0-9A-Za-z]{36}\n$/);
    expect(created.stderr).toMatch(/not shown again/);
    const secret = created.stdout.trim();

    const deployed = await runCli(['deploy', await site('cli-token'), '--domain', 'cli-token.example'], { env: as(secret) });
    expect(deployed.code, deployed.stderr).toBe(0);

    const listed = await runCli(['tokens', 'list', '--json'], { env: login });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const [entry] = JSON.parse(listed.stdout) as ApiToken[];
    expect(entry).toMatchObject({ name: 'CI of cli-token.example', scopes: ['deploy'], sites: null });
    await expect.poll(async () => JSON.parse((await runCli(['tokens', 'list', '--json'], { env: login })).stdout)[0].lastUsedAt).not.toBeNull();
    const table = await runCli(['tokens', 'list'], { env: login });
    expect(table.stdout).toMatch(/ID\s+NAME\s+SCOPES\s+SITES\s+EXPIRES\s+LAST USED/);
    expect(table.stdout).toContain(entry!.id);

    const revoked = await runCli(['tokens', 'revoke', entry!.id], { env: login });
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await runCli(['whoami'], { env: as(secret) });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/revoked/);
    expect(JSON.parse((await runCli(['tokens', 'list', '--json'], { env: login })).stdout)).toEqual([]);
  });

  it('--json prints the token with what it holds; --site limits it to that site', async () => {
    const login = as(await token(service, 'github|cli-site-user'));
    expect((await runCli(['deploy', await site('mine'), '--domain', 'cli-mine.example'], { env: login })).code).toBe(0);
    const created = await runCli(['tokens', 'create', '--name', 'one site', '--site', 'cli-mine.example', '--json'], { env: login });
    expect(created.code, created.stderr).toBe(0);
    const made = JSON.parse(created.stdout) as CreatedApiToken;
    expect(made).toMatchObject({ name: 'one site', scopes: ['deploy'], sites: ['cli-mine.example'], lastUsedAt: null });
    expect(made.token).toMatch(/^sitehost_[0-9A-Za-z]{36}$/);
    const loginDir = { XDG_CONFIG_HOME: join(work, 'api-token-login'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    const apiTokenLogin = await runCli(['login', '--origin', service.origin, '--token', made.token], { env: loginDir });
    expect(apiTokenLogin.code, apiTokenLogin.stderr).toBe(0);
    expect(apiTokenLogin.stdout).toContain('as github|cli-site-user');
    const identity = await runCli(['whoami'], { env: as(made.token) });
    expect(identity.stdout).toMatch(new RegExp(`token\\s+${made.id}`));
    expect(identity.stdout).toMatch(/sites\s+cli-mine\.example/);
    expect(identity.stdout).toMatch(/role\s+deployer\n/);
    expect((await runCli(['deploy', await site('mine'), '--domain', 'cli-mine.example'], { env: as(made.token) })).code).toBe(0);
    const elsewhere = await runCli(['deploy', await site('other'), '--domain', 'cli-other.example'], { env: as(made.token) });
    expect(elsewhere.code).toBe(5);
    expect(elsewhere.stderr).toMatch(/limited to the sites cli-mine\.example/);
  });

  it('refuses an unknown scope and a site not the caller’s with the service’s problem, and makes nothing', async () => {
    const login = as(await token(service, 'github|cli-bad-input'));
    const unknown = await runCli(['tokens', 'create', '--name', 'x', '--scope', 'deploy,root'], { env: login });
    // The service refused it (400): exit 7, not 2, which is left to what the CLI itself finds wrong.
    expect(unknown.code).toBe(7);
    expect(unknown.stderr).toMatch(/"root"/);
    const foreign = await runCli(['tokens', 'create', '--name', 'x', '--site', 'cli-token.example'], { env: login });
    expect(foreign.code).toBe(5);
    expect(foreign.stderr).toMatch(/cli-token\.example/);
    expect((await runCli(['tokens', 'list'], { env: login })).stdout).toMatch(/No tokens/);
  });
});

describe('sitehost tokens create --site, by a member', () => {
  it('makes a deployer a deploy token of the site and a viewer a read one, refusing the viewer a deploy token with the reason', async () => {
    const domain = 'cli-member-token.example';
    const owner = as(await token(service, 'github|cli-mt-owner'));
    expect((await runCli(['deploy', await site('member-site'), '--domain', domain], { env: owner })).code).toBe(0);
    expect((await runCli(['members', 'add', domain, 'github|cli-mt-deployer', '--role', 'deployer'], { env: owner })).code).toBe(0);
    expect((await runCli(['members', 'add', domain, 'github|cli-mt-viewer', '--role', 'viewer'], { env: owner })).code).toBe(0);

    const deployer = as(await token(service, 'github|cli-mt-deployer'));
    const made = await runCli(['tokens', 'create', '--name', 'CI', '--site', domain], { env: deployer });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`deploy on the sites ${domain} as a deployer at most`);
    // The owner's token limited to the site manages its members only when made with --role owner.
    const plain = await runCli(['tokens', 'create', '--name', 'plain', '--site', domain], { env: owner });
    expect((await runCli(['members', 'add', domain, 'github|cli-mt-third', '--role', 'viewer'], { env: as(plain.stdout.trim()) })).code).toBe(5);
    const owning = await runCli(['tokens', 'create', '--name', 'admin', '--site', domain, '--role', 'owner'], { env: owner });
    expect(owning.code, owning.stderr).toBe(0);
    expect(owning.stderr).toContain('as their owner');
    expect((await runCli(['members', 'add', domain, 'github|cli-mt-third', '--role', 'viewer'], { env: as(owning.stdout.trim()) })).code).toBe(0);
    expect((await runCli(['tokens', 'create', '--name', 'beyond', '--site', domain, '--role', 'owner'], { env: deployer })).code).toBe(5);
    const deployed = await runCli(['deploy', await site('member-site-v2'), '--domain', domain, '--message', 'by the deployer’s token'], { env: as(made.stdout.trim()) });
    expect(deployed.code, deployed.stderr).toBe(0);

    const viewer = as(await token(service, 'github|cli-mt-viewer'));
    const refused = await runCli(['tokens', 'create', '--name', 'CI', '--site', domain], { env: viewer });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/viewer of cli-member-token\.example/);
    const reader = await runCli(['tokens', 'create', '--name', 'reader', '--site', domain, '--scope', 'read', '--json'], { env: viewer });
    expect(reader.code, reader.stderr).toBe(0);
    const readToken = (JSON.parse(reader.stdout) as CreatedApiToken).token;
    const listed = await runCli(['deployments', domain, '--json'], { env: as(readToken) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('by the deployer’s token');
  });
});

describe('sitehost logout --everywhere', () => {
  it('stops a leaked year-long token and every API token of the user, and forgets the login here', async () => {
    const user = 'github|cli-leaked';
    const leaked = await yearLong(user);
    const config = { XDG_CONFIG_HOME: join(work, 'leaked-config'), XDG_CACHE_HOME: join(work, 'cache'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    expect((await runCli(['login', '--origin', service.origin, '--token', leaked], { env: config })).code).toBe(0);
    const made = await runCli(['tokens', 'create', '--name', 'CI'], { env: config });
    expect(made.code, made.stderr).toBe(0);
    const ci = made.stdout.trim();
    const other = await token(service, 'github|cli-bystander');

    const unconfirmed = await runCli(['logout', '--everywhere'], { env: config });
    expect(unconfirmed.code).toBe(2);
    expect((await runCli(['whoami'], { env: as(leaked) })).code).toBe(0);

    const signedOut = await runCli(['logout', '--everywhere', '--yes', '--json'], { env: config });
    expect(signedOut.code, signedOut.stderr).toBe(0);
    expect(JSON.parse(signedOut.stdout)).toMatchObject({ revoked: 1, loggedOut: true });
    expect(existsSync(join(work, 'leaked-config', 'sitehost', 'config.json'))).toBe(false);
    for (const stopped of [leaked, ci]) {
      const refused = await runCli(['whoami'], { env: as(stopped) });
      expect(refused.code).toBe(3);
    }
    expect((await runCli(['whoami'], { env: as(other) })).code).toBe(0);
  });
});
