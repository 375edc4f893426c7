// Starts the servers bench/serve measures, each in its own process group, and stops them.
import { spawn } from 'node:child_process';

/**
 * Runs `command args` and waits until `readyUrl` answers. Wrangler runs with `--log-level warn`
 * here, so that logging each request costs nothing during the measurement; it then never
 * prints "Ready on", hence the polling. Returns `{ stop() }`, which ends the whole group.
 */
export async function startProcess(command, args, { cwd, env, readyUrl, timeoutMs = 90_000 }) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(-child.pid, 'SIGTERM');
    const forced = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(forced);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited:\n${errors}`);
    try {
      await fetch(readyUrl, { signal: AbortSignal.timeout(2000) });
      return { stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${command} ${args.join(' ')} did not start:\n${errors}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
