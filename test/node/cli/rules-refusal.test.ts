/**
 * A deploy the service refuses for its `_redirects` and `_headers`: the CLI names every bad line
 * and exits with the code of a refusal the service made (7), not the code of bad usage (2),
 * against the real service (`npm start`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { runCli } from './run';

let service: RunningService;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-cli-rules-'));
  service = await sharedService();
  env = { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: await token(service, 'github|rules'), XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function folder(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(work, 'site-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('a deploy refused for its rules files', () => {
  it('names every bad line and exits 7, in text and in JSON', async () => {
    const root = await folder({ 'index.html': 'home', _redirects: '/ok /fine 302\n/a /b/:splat 302\n/c%zz /d 302', _headers: '/x?y=1\n  X-A: 1' });
    const text = await runCli(['deploy', root, '--domain', 'cli-rules.example'], { env });
    expect(text.code, text.stderr).toBe(7);
    const error = text.stderr.trim().split('\n').at(-1)!;
    expect(error).toMatch(/^Error: Rules file cannot be read: /);
    for (const line of ['_redirects line 2: ', '_redirects line 3: ', '_headers line 1: ']) expect(error).toContain(line);
    expect(error).toMatch(/\[HTTP 400\]$/);

    const json = await runCli(['deploy', root, '--domain', 'cli-rules.example', '--json'], { env });
    expect(json.code).toBe(7);
    const problem = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(problem).toMatchObject({ type: '/problems/invalid-rules-file', status: 400, exitCode: 7 });
    expect((problem.errors as { file: string; line: number }[]).map(({ file, line }) => `${file}:${line}`)).toEqual(['_redirects:2', '_redirects:3', '_headers:1']);
  });

  it('still exits 2 for bad usage the CLI finds itself', async () => {
    expect((await runCli(['deploy', await folder({ 'index.html': 'x' })], { env })).code).toBe(2);
  });
});
