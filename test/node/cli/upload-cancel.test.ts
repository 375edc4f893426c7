import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run';
import { type RunningService, sharedService, token } from '../support/service';

/**
 * `sitehost deploy` cancels the upload it cannot finish (its bytes stop counting against the
 * user), and `sitehost admin replay` replays a site's dead follow-ups: the real CLI against the
 * real service.
 */

let service: RunningService;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-cancel-'));
  service = await sharedService();
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The CLI as a CI job runs it: origin and token from variables, no stored login. */
const cliEnv = (userToken: string) => ({ SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') });

/** A folder `name` in the test's folder holding `files` (flat). */
async function folder(name: string, files: Record<string, string>): Promise<string> {
  const root = join(work, name);
  await mkdir(root, { recursive: true });
  await Promise.all(Object.entries(files).map(([file, content]) => writeFile(join(root, file), content)));
  return root;
}

async function bytesUsed(userToken: string): Promise<number> {
  const response = await fetch(`${service.origin}/v2/usage`, { headers: { authorization: `Bearer ${userToken}` } });
  return ((await response.json()) as { bytes: { used: number } }).bytes.used;
}

describe('an upload the CLI cannot finish', () => {
  it('is cancelled: a deploy refused at its finalize leaves no bytes counted', async () => {
    const user = await token(service, 'github|cli-cancel');
    const domain = 'cli-cancel.example';
    const first = await runCli(['deploy', await folder('first', { 'index.html': 'home' }), '--domain', domain], { env: cliEnv(user) });
    expect(first.code).toBe(0);
    const used = await bytesUsed(user);

    // The site exists and the folder is new to the CLI: the manifest goes first, then the blobs; the rules are refused at the finalize.
    const badRules = await folder('bad-rules', { 'index.html': 'again', 'big.bin': 'x'.repeat(64 * 1024), _redirects: '/a /b 999\n' });
    const refused = await runCli(['deploy', badRules, '--domain', domain, '--no-cache'], { env: cliEnv(user) });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/_redirects/);
    expect(await bytesUsed(user)).toBe(used);
  });
});

describe('sitehost admin replay', () => {
  it("replays a site's dead follow-ups, for an operator", async () => {
    const operator = await token(service, 'github|cli-operator', 'admin');
    const replay = await runCli(['admin', 'replay', 'cli-cancel.example'], { env: cliEnv(operator) });
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe('✔ Replayed 0 dead follow-ups of cli-cancel.example.\n');
    const json = await runCli(['admin', 'replay', 'cli-cancel.example', '--json'], { env: cliEnv(operator) });
    expect(JSON.parse(json.stdout)).toEqual({ domain: 'cli-cancel.example', replayed: 0 });

    const notOperator = await runCli(['admin', 'replay', 'cli-cancel.example'], { env: cliEnv(await token(service, 'github|cli-cancel')) });
    expect(notOperator.code).not.toBe(0);
  });
});
