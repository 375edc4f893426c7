import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort, getFromSite, token } from '../support/service';
import { startCountingRelay } from './counting-relay';
import { runCli, startCli } from './run';
import { aliceSite, ciEnvironment, expectOneLineError, useCliSession, writeBigFolder, writeTree } from './session';

/** The `sitehost` CLI against the shared service, black-box (./session.ts). Logging in, following events, and how every kind of failure exits. */

const session = useCliSession();
const as = (userToken: string) => ciEnvironment(session, userToken);
/** A site of alice's, which bob may not change. */
const owned = 'cli-owned.example';

beforeAll(() => aliceSite(session, 'site', owned, { 'index.html': '<h1>Home</h1>' }));

describe('sitehost login', () => {
  it('checks the token, then stores origin and token readable by the user only', async () => {
    const env = { XDG_CONFIG_HOME: join(session.work, 'config'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    const login = await runCli(['login', '--origin', `${session.service.origin}/`, '--token', session.alice], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('as github|alice');

    const file = join(session.work, 'config', 'sitehost', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ origin: session.service.origin, token: session.alice });

    const sites = await runCli(['sites'], { env });
    expect(sites.code, sites.stderr).toBe(0);
  });

  it('refuses a token the server rejects, and stores nothing', async () => {
    const env = { XDG_CONFIG_HOME: join(session.work, 'refused'), SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '' };
    const forged = await token(session.service, 'github|alice', 'deploy', 'not-the-secret');
    const login = await runCli(['login', '--origin', session.service.origin], { env, stdin: `${forged}\n` });
    expect(login.code).toBe(3);
    expectOneLineError(login);
    await expect(stat(join(session.work, 'refused', 'sitehost', 'config.json'))).rejects.toThrow();
  });
});

describe('sitehost events', () => {
  it('follows deploys as they happen, and resumes after an event id', async () => {
    const reader = await token(session.service, 'github|ops', 'global_read');
    // From the first event on, so that the deploy below cannot slip in before the subscription.
    const follower = startCli(['events', '--json', '--last-event-id', '0'], { env: as(reader) });
    try {
      const site = await writeTree(join(session.work, 'events'), { 'index.html': 'events' });
      const deploy = await runCli(['deploy', site, '--domain', 'cli-events.example', '--json'], { env: as(session.alice) });
      expect(deploy.code, deploy.stderr).toBe(0);
      const line = await follower.waitForLine((text) => text.includes('"cli-events.example"'));
      const event = JSON.parse(line) as { id: string };
      // The deploy's output is the deploy result (the event's data) with the deployment's id and URLs.
      const { id: _id, url: _url, previewUrl: _previewUrl, unchanged: _unchanged, ...result } = JSON.parse(deploy.stdout) as Record<string, unknown>;
      expect(event).toEqual({ id: expect.stringMatching(/^\d+$/), ...result });

      const resumed = startCli(['events', '--json', '--last-event-id', String(Number(event.id) - 1)], { env: as(reader) });
      try {
        expect(JSON.parse(await resumed.waitForLine(() => true))).toEqual(event);
      } finally {
        await resumed.stop();
      }
    } finally {
      await follower.stop();
    }
  });

  it('exits 3 without the global_read scope', async () => {
    const run = await runCli(['events'], { env: as(session.alice) });
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Insufficient scope: /);
  });
});

describe('errors', () => {
  it('exits 3 for a token the server rejects', async () => {
    const forged = await token(session.service, 'github|alice', 'deploy', 'not-the-secret');
    const run = await runCli(['sites'], { env: as(forged) });
    expect(run.code).toBe(3);
    expectOneLineError(run);
    expect(run.stderr).toContain('Authentication required');
  });

  it('exits 3 when not logged in at all', async () => {
    const run = await runCli(['sites'], { env: { SITEHOST_ORIGIN: '', SITEHOST_TOKEN: '', XDG_CONFIG_HOME: join(session.work, 'nobody') } });
    expect(run.code).toBe(3);
    expectOneLineError(run);
  });

  it('exits 4 for a site that is not hosted', async () => {
    const run = await runCli(['config', 'get', 'nowhere.example'], { env: as(session.alice) });
    expect(run.code).toBe(4);
    expectOneLineError(run);
    expect(run.stderr).toContain('Site not found: No site is hosted at nowhere.example.');
  });

  it("exits 5 for another user's site", async () => {
    const site = await writeTree(join(session.work, 'intruder'), { 'index.html': 'mine now' });
    const deploy = await runCli(['deploy', site, '--domain', owned], { env: as(session.bob) });
    expect(deploy.code).toBe(5);
    expect(deploy.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Forbidden: /);
    const remove = await runCli(['delete', owned, '--yes'], { env: as(session.bob) });
    expect(remove.code).toBe(5);
    expectOneLineError(remove);
    expect(await getFromSite(session.service, owned, '/index.html')).toEqual({ status: 200, body: '<h1>Home</h1>' });
  });

  it('exits 2 for bad usage, with a stack trace only under --debug', async () => {
    const noDomain = await runCli(['deploy', join(session.work, 'site')], { env: as(session.alice) });
    expect(noDomain.code).toBe(2);
    expectOneLineError(noDomain);

    const unknownOption = await runCli(['sites', '--colour'], { env: as(session.alice) });
    expect(unknownOption.code).toBe(2);

    const invalidDomain = await runCli(['deploy', join(session.work, 'site'), '--domain', 'localhost'], { env: as(session.alice) });
    expect(invalidDomain.code).toBe(2);
    expect(invalidDomain.stderr).toContain('Invalid domain');

    const debug = await runCli(['--debug', 'deploy', join(session.work, 'missing-folder'), '--domain', 'x.example'], { env: as(session.alice) });
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('refuses an invalid domain itself, before reading the folder or connecting', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const run = await runCli(['deploy', join(session.work, 'missing-folder'), '--domain', 'bad_domain'], { env: { ...as(session.alice), SITEHOST_ORIGIN: nowhere } });
    expect(run.code).toBe(2);
    expectOneLineError(run);
    expect(run.stderr).toContain('Invalid domain: "bad_domain" is not a valid domain');
  });

  it('asks before it uploads: a token the session.service refuses costs none of the folder', async () => {
    const big = await writeBigFolder(join(session.work, 'refused-big'), [20, 20, 20]);
    const relay = await startCountingRelay(session.service.port);
    try {
      const forged = await token(session.service, 'github|alice', 'deploy', 'not-the-secret');
      const started = Date.now();
      const run = await runCli(['deploy', big, '--domain', 'cli-refused.example'], { env: { ...as(forged), SITEHOST_ORIGIN: relay.origin } });
      const seconds = (Date.now() - started) / 1000;
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Authentication required: /);
      expect(run.stderr).not.toContain('Uploaded 3 files');
      console.log(`Refused deploy of 60 MiB: ${(relay.bytesFromClients() / 1024 / 1024).toFixed(1)} MiB sent in ${seconds.toFixed(1)} s`);
      // Request headers only: no part of the 60 MiB left the machine.
      expect(relay.bytesFromClients()).toBeLessThan(64 * 1024);
    } finally {
      await relay.close();
    }
  });

  it('exits 6 when the session.service cannot be reached', async () => {
    const run = await runCli(['sites'], { env: { ...as(session.alice), SITEHOST_ORIGIN: 'http://127.0.0.1:1' } });
    expect(run.code).toBe(6);
    expectOneLineError(run);
    expect(run.stderr).toContain('Could not reach http://127.0.0.1:1');
  });
});
