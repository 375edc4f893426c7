import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFromSite, type RunningService, sharedService, token } from '../support/service';
import { runCli } from './run';

/**
 * `sitehost admin suspend-user|resume-user` against the real service: an operator suspends a
 * user, whose every site answers 451 and who can change nothing, and who sees why.
 */
let service: RunningService;
let work: string;
let operator: string;
let owner: string;

/** The environment of a CI job running the CLI as `userToken`. */
const as = (userToken: string) => ({ SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-suspend-user-'));
  service = await sharedService();
  [operator, owner] = await Promise.all([token(service, 'github|operator', 'admin'), token(service, 'github|held', 'deploy')]);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sitehost admin suspend-user and resume-user', () => {
  it("suspend every site of a user (451) and what they may do, shown to them, until resumed; --json answers the service's body", async () => {
    const site = join(work, 'site');
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'index.html'), '<h1>held</h1>');
    for (const domain of ['held-one.test', 'held-two.test']) {
      const deployed = await runCli(['deploy', site, '--domain', domain], { env: as(owner) });
      expect(deployed.code, deployed.stderr).toBe(0);
    }

    const suspended = await runCli(['admin', 'suspend-user', 'github|held', '--reason', 'Phishing kits (case 7012)'], { env: as(operator) });
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toContain('Suspended the user github|held since');
    expect(suspended.stdout).toContain('2 sites answer 451');
    expect(suspended.stdout).toMatch(/reason\s+Phishing kits \(case 7012\)/);
    expect(suspended.stdout).toMatch(/sites\s+held-one\.test, held-two\.test/);
    for (const domain of ['held-one.test', 'held-two.test']) expect((await getFromSite(service, domain, '/')).status).toBe(451);

    // The user sees why, and their changes are refused with it (exit code 5: forbidden).
    const whoami = await runCli(['whoami'], { env: as(owner) });
    expect(whoami.stdout).toMatch(/suspended\s+since .*: Phishing kits \(case 7012\)/);
    const info = await runCli(['info', 'held-one.test'], { env: as(owner) });
    expect(info.stdout).toMatch(/owner held\s+the owner is suspended since .*: Phishing kits \(case 7012\)/);
    const redeploy = await runCli(['deploy', site, '--domain', 'held-three.test'], { env: as(owner) });
    expect(redeploy.code).toBe(5);
    expect(redeploy.stderr).toContain('User suspended');
    expect(redeploy.stderr).toContain('Reason: Phishing kits (case 7012)');

    const again = await runCli(['admin', 'suspend-user', 'github|held', '--reason', 'Phishing kits (case 7012)', '--json'], { env: as(operator) });
    expect(JSON.parse(again.stdout)).toEqual({ userId: 'github|held', reason: 'Phishing kits (case 7012)', since: expect.any(String), domains: ['held-one.test', 'held-two.test'] });

    const refused = await runCli(['admin', 'suspend-user', 'github|held', '--reason', 'x'], { env: as(owner) });
    expect(refused.code).toBe(3);

    const resumed = await runCli(['admin', 'resume-user', 'github|held'], { env: as(operator) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Resumed the user github|held: their sites are served again');
    for (const domain of ['held-one.test', 'held-two.test']) expect((await getFromSite(service, domain, '/')).status).toBe(200);
    const notSuspended = await runCli(['admin', 'resume-user', 'github|held', '--json'], { env: as(operator) });
    expect(notSuspended.code).toBe(4);
    expect(JSON.parse(notSuspended.stderr)).toMatchObject({ status: 404, detail: 'The user github|held is not suspended.' });
    for (const command of ['suspend-user', 'resume-user']) expect((await runCli(['admin', command, '--help'])).stdout).toMatch(/^\s+--json\s/m);
  });
});
