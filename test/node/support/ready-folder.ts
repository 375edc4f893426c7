import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * For a global set-up's work in the background: runs `node <args>` in a process of its own and
 * writes `ready` in `folder` once it exits 0, or `failed` with `failure` and what it printed to
 * stderr. The promise settles once either is written (a set-up's teardown waits on it).
 */
export function runInBackground(folder: string, args: readonly string[], failure: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const outcome = new Promise<string | undefined>((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve(String(error)));
    child.on('close', (code) => resolve(code === 0 ? undefined : `${failure}:\n${stderr}`));
  });
  return outcome.then((why) => writeFile(join(folder, why === undefined ? 'ready' : 'failed'), why ?? ''));
}

/**
 * Waits until a global set-up that works in the background has finished with `folder`: it writes
 * `ready` there when done, or `failed` with why. Vitest starts no test file before every global
 * set-up has returned, so the slow ones return at once and their files wait here instead.
 */
export async function readyFolder(folder: string, what: string, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(join(folder, 'ready'))) {
    if (existsSync(join(folder, 'failed'))) throw new Error(`${what} failed:\n${readFileSync(join(folder, 'failed'), 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return folder;
}
