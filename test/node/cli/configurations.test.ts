import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { runCli, startCli } from './run';

/** `sitehost configurations [--follow]` (issue 32): the list as JSON lines, then every change, pushed by the event stream. */

let service: RunningService;
let work: string;
let deployer: string;
let reader: string;

function as(userToken: string): Record<string, string> {
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

async function deployConfiguration(domain: string, configuration: Record<string, unknown>): Promise<void> {
  const form = new FormData();
  form.append('configuration', JSON.stringify(configuration));
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${deployer}` }, body: form });
  expect(response.status, await response.text()).toBe(200);
}

async function unpublish(domain: string): Promise<void> {
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'DELETE', headers: { authorization: `Bearer ${deployer}` } });
  expect(response.status).toBe(200);
}

const lines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-configurations-'));
  service = await sharedService();
  deployer = await token(service, 'github|edge-owner');
  reader = await token(service, 'github|edge-agent', 'global_read');
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sitehost configurations', () => {
  it('prints every record as a JSON line, then the cursor; --since prints the changes after it', async () => {
    await deployConfiguration('cli-conf-a.example', { root: 'a' });
    await deployConfiguration('cli-conf-b.example', { root: 'b' });
    const listed = await runCli(['configurations'], { env: as(reader) });
    expect(listed.code, listed.stderr).toBe(0);
    const printed = lines(listed.stdout);
    expect(printed.filter((line) => String(line.domain).startsWith('cli-conf-'))).toEqual([
      { domain: 'cli-conf-a.example', modified: expect.any(String), configuration: { root: 'a' } },
      { domain: 'cli-conf-b.example', modified: expect.any(String), configuration: { root: 'b' } },
    ]);
    const { cursor } = printed.at(-1)!;
    expect(cursor).toEqual(expect.any(String));

    await unpublish('cli-conf-a.example');
    const since = await runCli(['configurations', '--since', String(cursor)], { env: as(reader) });
    expect(since.code, since.stderr).toBe(0);
    // The shared service's other files change their own sites meanwhile: this file's changes, then the cursor.
    const changes = lines(since.stdout);
    expect(changes.filter((line) => String(line.domain).startsWith('cli-conf-'))).toEqual([{ domain: 'cli-conf-a.example', modified: expect.any(String), deleted: true }]);
    expect(changes.at(-1)).toEqual({ cursor: expect.any(String) });
  });

  it('--follow prints each change as it happens, woken by the event stream', async () => {
    await deployConfiguration('cli-follow-old.example', { root: 'old' });
    // A poll an hour apart: a change printed at once came with the event stream's hint.
    const follower = startCli(['configurations', '--follow', '--interval', '3600'], { env: as(reader) });
    try {
      await follower.waitForLine((line) => line.includes('"cli-follow-old.example"'));
      await follower.waitForLine((line) => line.startsWith('{"cursor"'));
      await deployConfiguration('cli-follow-new.example', { root: 'new' });
      const added = JSON.parse(await follower.waitForLine((line) => line.includes('"cli-follow-new.example"'), 30_000));
      expect(added).toEqual({ domain: 'cli-follow-new.example', modified: expect.any(String), configuration: { root: 'new' } });
      await unpublish('cli-follow-old.example');
      const removed = JSON.parse(await follower.waitForLine((line) => line.includes('"cli-follow-old.example"') && line.includes('deleted'), 30_000));
      expect(removed).toEqual({ domain: 'cli-follow-old.example', modified: expect.any(String), deleted: true });
    } finally {
      await follower.stop();
    }
  });

  it('answers a cursor the service did not give with its refusal', async () => {
    const run = await runCli(['configurations', '--since', '1.AAAAAAAAAAAAAAAAAAAAAA'], { env: as(reader) });
    // The service refused the cursor (400): exit 7, the code of a refusal the service made.
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/since/);
  });
});
