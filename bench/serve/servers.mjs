// Starts the servers bench/serve measures, each in its own process group, and stops them.
import { spawn } from 'node:child_process';
import { listeningPorts, processTable } from '../proc.mjs';

/**
 * Runs `command args` and waits until `readyUrl` answers from a process it started. Wrangler runs
 * with `--log-level warn` here, so that logging each request costs nothing during the
 * measurement; it then never prints "Ready on", hence the polling. A port can be taken between
 * choosing it and binding it (`npm run bench:quick` runs benches side by side): an answer counts
 * only when one of the group's processes listens on that port, so the bench never measures
 * another bench's server. Returns `{ pid, stop() }`: the group's leader, and stop(), which ends
 * the whole group.
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
  const port = Number(new URL(readyUrl).port);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited:\n${errors}`);
    try {
      await fetch(readyUrl, { signal: AbortSignal.timeout(2000) });
      if (listeningPorts(groupPids(child.pid)).includes(port)) return { pid: child.pid, stop };
    } catch {
      // Not answering yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} ${args.join(' ')} did not start listening on ${port}:\n${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The pids of the processes in process group `group`. */
export function groupPids(group) {
  return processTable()
    .filter((process) => process.group === group)
    .map(({ pid }) => pid);
}
