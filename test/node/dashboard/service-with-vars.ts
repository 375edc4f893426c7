import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Service } from '../cli/service';

const repo = new URL('../../..', import.meta.url).pathname;

/**
 * The service as `npm start` runs it, with extra vars (`wrangler dev --var NAME:value`), which
 * ../cli/service.ts's startService has no way to pass. Same state and secret handling as there.
 */
export async function startServiceWithVars(vars: Record<string, string>): Promise<Service> {
  const persistDir = await mkdtemp(join(tmpdir(), 'sitehost-dashboard-'));
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const secret = randomBytes(32).toString('base64url');
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  let output = '';
  const server: ChildProcess = spawn(process.execPath, ['scripts/start.mjs', '--ip', '127.0.0.1', '--inspector-port', String(inspectorPort), ...varArgs], {
    cwd: repo,
    env: { ...process.env, PORT: String(port), SITEHOST_PERSIST_DIR: persistDir, AUTH_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  for (const stream of [server.stdout!, server.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (server.pid && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await rm(persistDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  while (!output.includes('Ready on')) {
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The service did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin: `http://127.0.0.1:${port}`, port, secret, stop };
}
