// Starts the servers bench/serve measures, each in its own process group, and stops them.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

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
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces, so split after its closing parenthesis.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === group;
    } catch {
      return false;
    }
  }).map(Number);
}

/** The TCP ports the processes `pids` listen on: /proc's socket tables matched to the sockets they hold open. */
export function listeningPorts(pids) {
  const portOfSocket = new Map();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      // "sl local_address rem_address st … inode": the address is hex "ADDR:PORT", state 0A is LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') portOfSocket.set(`socket:[${fields[9]}]`, parseInt(fields[1].split(':')[1], 16));
    }
  }
  const ports = new Set();
  for (const pid of pids) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      // The process has ended.
    }
    for (const fd of fds) {
      try {
        const port = portOfSocket.get(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (port !== undefined) ports.add(port);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return [...ports];
}
