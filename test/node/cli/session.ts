import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { type CliRun, runCli } from './run';

/**
 * The `sitehost` CLI's black-box test files (test/node/cli/*.test.ts) run the real binary
 * (`node bin/sitehost.mjs`, ./run.ts) against the real service under `wrangler dev`, with
 * credentials from SITEHOST_ORIGIN / SITEHOST_TOKEN or from `sitehost login`'s file in a temporary
 * XDG_CONFIG_HOME. What they share: the shared service
 * (../support/service.ts), a temporary folder of the file's own, and two users' tokens. Each file
 * deploys its own sites, so the files run side by side. A new CLI test file calls useCliSession()
 * at its top and reads the session's fields in its tests.
 */
export interface CliSession {
  service: RunningService;
  /** The file's temporary folder, deleted after its tests. */
  work: string;
  /** Tokens with the deploy scope of github|alice and github|bob. */
  alice: string;
  bob: string;
}

/** Registers the set-up and clean-up of a CLI test file; the fields are there once its beforeAll has run. */
export function useCliSession(): CliSession {
  const session = {} as CliSession;
  beforeAll(async () => {
    session.work = await mkdtemp(join(tmpdir(), 'sitehost-cli-test-'));
    session.service = await sharedService();
    session.alice = await token(session.service, 'github|alice');
    session.bob = await token(session.service, 'github|bob');
  }, 120_000);
  afterAll(async () => {
    if (session.work) await rm(session.work, { recursive: true, force: true });
  });
  return session;
}

/** The environment of a CI job: origin and token from variables, no stored login, the hash cache in the test's folder. */
export function ciEnvironment(session: CliSession, userToken: string): Record<string, string> {
  const { service, work } = session;
  return { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') };
}

export async function writeTree(root: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

/** A site of alice's for a file's tests to use: `files` written to the folder `name` and deployed as `domain` through the CLI. */
export async function aliceSite(session: CliSession, name: string, domain: string, files: Record<string, string>): Promise<string> {
  const folder = await writeTree(join(session.work, name), files);
  const deploy = await runCli(['deploy', folder, '--domain', domain], { env: ciEnvironment(session, session.alice) });
  expect(deploy.code, deploy.stderr).toBe(0);
  return folder;
}

/** A failure is one readable line on stderr: no stack trace. */
export function expectOneLineError(run: CliRun): void {
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

/** A folder of `sizesInMiB.length` files of the given sizes and distinct contents, written without holding them in memory. */
export async function writeBigFolder(root: string, sizesInMiB: readonly number[]): Promise<string> {
  await mkdir(root, { recursive: true });
  for (const [index, size] of sizesInMiB.entries()) {
    // Each file's own content: equal files would be uploaded once.
    const megabyte = Buffer.alloc(1024 * 1024, `sitehost ${index} `);
    await pipeline(
      (function* () {
        for (let i = 0; i < size; i += 1) yield megabyte;
      })(),
      createWriteStream(join(root, `file-${index}.bin`)),
    );
  }
  return root;
}
