import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { getFromSite, siteAnswer, token } from '../support/service';
import { type CliRun, runCli } from './run';
import { aliceSite, ciEnvironment, expectOneLineError, useCliSession, writeTree } from './session';

/** The `sitehost` CLI against the shared service, black-box (./session.ts). The flags CI scripts already type, whoami, and errors as JSON. */

const session = useCliSession();
const as = (userToken: string) => ciEnvironment(session, userToken);
/** A site of alice's, whose configuration a bad patch is refused for. */
const configured = 'cli-configured.example';

beforeAll(() => aliceSite(session, 'configured', configured, { 'index.html': '<h1>Home</h1>' }));

describe('flags CI scripts already type, whoami and JSON errors', () => {
  it('takes --dir, --message and --prod, and says so when a deploy changes nothing', async () => {
    const site = 'cli-flags.example';
    const root = await writeTree(join(session.work, 'flags'), { 'index.html': 'v1' });
    const run = await runCli(['deploy', '--dir', root, '--domain', site, '--prod', '--message', 'abc123 Fix the header', '--json'], { env: as(session.alice) });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { id: string };
    const listed = JSON.parse((await runCli(['deployments', site, '--json'], { env: as(session.alice) })).stdout) as unknown[];
    expect(listed).toEqual([expect.objectContaining({ id: result.id, live: true, preview: false, message: 'abc123 Fix the header', client: 'cli', source: 'incremental' })]);

    // The whole manifest of the same folder (no record of the last deploy): no new deployment.
    const again = await runCli(['deploy', root, '--domain', site, '--no-cache', '--json'], { env: as(session.alice) });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: result.id, deploymentId: result.id, unchanged: true });
    expect(JSON.parse((await runCli(['deployments', site, '--json'], { env: as(session.alice) })).stdout)).toHaveLength(1);

    const twoFolders = await runCli(['deploy', root, '--dir', join(session.work, 'site'), '--domain', site], { env: as(session.alice) });
    expect(twoFolders.code).toBe(2);
    expect(twoFolders.stderr).toContain('Two folders given');
    const contradiction = await runCli(['deploy', root, '--domain', site, '--prod', '--preview'], { env: as(session.alice) });
    expect(contradiction.code).toBe(2);
    const tooLong = await runCli(['deploy', root, '--domain', site, '--message', 'x'.repeat(1001)], { env: as(session.alice) });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('MAX_MESSAGE_LENGTH');
  });

  it('makes a stable preview host with --alias, a preview unless --prod, the first deploy of a domain included', async () => {
    const site = 'cli-alias.example';
    const root = await writeTree(join(session.work, 'alias'), { 'index.html': 'branch one' });
    const first = await runCli(['deploy', root, '--domain', site, '--alias', 'feature/Login', '--json'], { env: as(session.alice) });
    expect(first.code, first.stderr).toBe(0);
    const preview = JSON.parse(first.stdout) as { aliasUrl: string; url?: string; shareUrl: string };
    expect(preview).toMatchObject({ domain: site, live: false, preview: true, alias: 'feature-login', unchanged: false });
    expect(preview.url).toBeUndefined();
    expect(preview.aliasUrl).toMatch(new RegExp(`^http://feature-login--cli-alias-example-[a-z2-7]{13}\\.preview\\.localhost:${session.service.port}/$`));
    const aliasHost = new URL(preview.aliasUrl).hostname.replace(/\.localhost$/, '');
    // A new site's previews are for members: the CLI printed a share link, which opens the alias host.
    expect((await getFromSite(session.service, aliasHost, '/')).status).toBe(401);
    expect(preview.shareUrl.startsWith(`${preview.aliasUrl}.sitehost/grant?grant=`)).toBe(true);
    const opened = await siteAnswer(session.service, aliasHost, new URL(preview.shareUrl).pathname + new URL(preview.shareUrl).search);
    expect(opened.status).toBe(303);
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const asMember = async () => {
      const { status, body } = await siteAnswer(session.service, aliasHost, '/', { cookie });
      return { status, body };
    };
    expect(await asMember()).toEqual({ status: 200, body: 'branch one' });
    // The domain is claimed, and nothing is live.
    expect((await getFromSite(session.service, site, '/')).status).toBe(404);

    await writeTree(root, { 'index.html': 'branch two' });
    const next = await runCli(['deploy', root, '--domain', site, '--alias', 'feature/Login'], { env: as(session.alice) });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('Alias "feature/Login" is sent as feature-login.');
    expect(next.stdout).toContain(`Alias feature-login: ${preview.aliasUrl}`);
    expect(next.stdout).toMatch(/Previews are for members: share link, until .* UTC: http:\/\/feature-login--/);
    expect(await asMember()).toEqual({ status: 200, body: 'branch two' });

    const prod = await runCli(['deploy', root, '--domain', site, '--alias', 'main', '--prod', '--json'], { env: as(session.alice) });
    expect(prod.code, prod.stderr).toBe(0);
    expect(JSON.parse(prod.stdout)).toMatchObject({ type: 'site-deploy', url: `http://${site}.localhost:${session.service.port}/`, aliasUrl: expect.stringContaining('main--cli-alias-example-') });
    expect(await getFromSite(session.service, site, '/')).toEqual({ status: 200, body: 'branch two' });

    const list = await runCli(['deployments', site], { env: as(session.alice) });
    expect(list.stdout).toMatch(/^Aliases \(each serves the newest deployment with it\):$/m);
    expect(list.stdout).toMatch(new RegExp(`^  feature-login  ${preview.aliasUrl.replaceAll('.', '\\.')}  [a-z2-7]{20}$`, 'm'));
  });

  it('says who the token is with whoami', async () => {
    // The time left is the token's own exp less the moment the CLI read the clock, which lies
    // between the two readings below, however long the run took on a busy machine.
    const expiresAtMs = (decodeJwt(session.alice).exp ?? 0) * 1000;
    const before = Date.now();
    const text = await runCli(['whoami'], { env: as(session.alice) });
    const after = Date.now();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^user\s+github\|alice$/m);
    expect(text.stdout).toMatch(/^scopes\s+deploy$/m);
    const expiresAt = new Date(expiresAtMs).toISOString().slice(0, 23);
    const [, shown, minutes] = /^expires\s+(.+) \(in (\d+) minutes\)$/m.exec(text.stdout) ?? [];
    expect(shown).toBe(`${expiresAt.slice(0, 19).replace('T', ' ')} UTC`);
    expect(Number(minutes)).toBeGreaterThanOrEqual(Math.round((expiresAtMs - after) / 60_000));
    expect(Number(minutes)).toBeLessThanOrEqual(Math.round((expiresAtMs - before) / 60_000));
    const json = await runCli(['whoami', '--json'], { env: as(session.alice) });
    expect(JSON.parse(json.stdout)).toEqual({ userId: 'github|alice', scopes: ['deploy'], issuer: 'sitehost', expiresAt, origin: session.service.origin });
    const forged = await runCli(['whoami'], { env: as(await token(session.service, 'github|alice', 'deploy', 'not-the-secret')) });
    expect(forged.code).toBe(3);
    expectOneLineError(forged);
  });

  it('prints an error as one JSON problem on standard error with --json, exiting with the code of its kind', async () => {
    const problemOf = (run: CliRun) => {
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!) as Record<string, unknown>;
    };
    const notFound = await runCli(['config', 'get', 'nowhere.example', '--json'], { env: as(session.alice) });
    expect(notFound.code).toBe(4);
    expect(problemOf(notFound)).toEqual({ type: '/problems/site-not-found', title: 'Site not found', status: 404, detail: 'No site is hosted at nowhere.example.', exitCode: 4 });
    const invalid = await runCli(['config', 'patch', configured, '{"fallback": 42}', '--json'], { env: as(session.alice) });
    expect(invalid.code).toBe(7);
    expect(problemOf(invalid)).toMatchObject({ type: '/problems/invalid-configuration', status: 400, errors: [expect.objectContaining({ pointer: '/fallback' })], exitCode: 7 });
    const usage = await runCli(['sites', '--colour', '--json'], { env: as(session.alice) });
    expect(usage.code).toBe(2);
    expect(problemOf(usage)).toEqual({ type: 'urn:sitehost:cli:usage', title: 'Invalid usage', detail: "unknown option '--colour'", exitCode: 2 });
    const nobody = await runCli(['whoami', '--json'], { env: { SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '', XDG_CONFIG_HOME: join(session.work, 'nobody') } });
    expect(nobody.code).toBe(3);
    expect(problemOf(nobody)).toMatchObject({ type: 'urn:sitehost:cli:auth', exitCode: 3 });
    const unreachable = await runCli(['sites', '--json'], { env: { ...as(session.alice), SITEHOST_ORIGIN: 'http://127.0.0.1:1' } });
    expect(unreachable.code).toBe(6);
    expect(problemOf(unreachable)).toMatchObject({ type: 'urn:sitehost:cli:server', detail: expect.stringContaining('Could not reach'), exitCode: 6 });
  });

  it('offers --json on every command', async () => {
    const commands = ['login', 'logout', 'whoami', 'deploy', 'deployments', 'rollback', 'sites', 'usage', 'delete', 'config get', 'config set', 'config patch', 'files ls', 'files put', 'files rm', 'domains proof', 'info', 'events', 'admin suspend', 'admin resume', 'admin delete'];
    for (const command of commands) {
      const help = await runCli([...command.split(' '), '--help']);
      expect(help.stdout, command).toMatch(/^\s+--json\s/m);
    }
    const logout = await runCli(['logout', '--json'], { env: { XDG_CONFIG_HOME: join(session.work, 'nobody') } });
    expect(JSON.parse(logout.stdout)).toEqual({ loggedOut: false, configFile: join(session.work, 'nobody', 'sitehost', 'config.json') });
  });
});
