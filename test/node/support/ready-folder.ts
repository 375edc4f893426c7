import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
