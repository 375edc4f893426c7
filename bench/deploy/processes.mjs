// Runs wrangler dev servers for the benchmark and measures the workerd processes under them.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { processTable, statFields, userHz } from '../proc.mjs';

/**
 * wrangler dev's arguments for an inspector port of its own: left to itself, each takes 9229 when
 * it looks free, and of two starting at once (`npm run bench:quick` runs benches side by side)
 * one fails with "Address already in use".
 */
export async function inspectorArgs() {
  return ['--inspector-port', String(await freePort())];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/**
 * Starts a server command (wrangler dev, or scripts/start.mjs, which passes its arguments on to
 * it) in its own process group and waits until wrangler prints "Ready on". Returns
 * `{ pid, output(), stop() }`; stop() ends the whole group (wrangler and workerd).
 */
export async function startServer(args, { cwd, env, timeoutMs = 90_000 }) {
  const child = spawn(process.execPath, [...args, ...(await inspectorArgs())], {
    cwd,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + timeoutMs;
  while (!output.includes('Ready on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      throw new Error(`${args.join(' ')} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    pid: child.pid,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(-child.pid, 'SIGTERM');
      const forced = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(forced);
    },
  };
}

/** The pids of the workerd processes below `rootPid`. */
export function workerdPids(rootPid) {
  const children = Map.groupBy(processTable(), (process) => process.parent);
  const found = [];
  const walk = (pid) => {
    for (const child of children.get(pid) ?? []) {
      if (child.command === 'workerd') found.push(child.pid);
      walk(child.pid);
    }
  };
  walk(rootPid);
  return found;
}

/** VmRSS and VmHWM of a process, in bytes (zero once it has ended). */
export function memoryOf(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { rss: 0, hwm: 0 };
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/**
 * Measures the resident memory of processes while `work` runs: each peak is reset first
 * (clear_refs 5), sampled every 10 ms, and read back from VmHWM at the end, so a peak between
 * two samples still counts. Returns `{ result, processes: [{ pid, before, peak }] }` (bytes).
 */
export async function measureMemory(pids, work) {
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      // Ended meanwhile: it reads as zero below.
    }
  }
  const processes = pids.map((pid) => ({ pid, before: memoryOf(pid).rss, peak: 0 }));
  const sample = () => {
    for (const entry of processes) entry.peak = Math.max(entry.peak, memoryOf(entry.pid).rss);
  };
  const timer = setInterval(sample, 10);
  try {
    const result = await work();
    sample();
    for (const entry of processes) entry.peak = Math.max(entry.peak, memoryOf(entry.pid).hwm);
    return { result, processes };
  } finally {
    clearInterval(timer);
  }
}

/** CPU time a process has used (user and system), in milliseconds; zero once it has ended. */
export function cpuMsOf(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // After "(comm) ", state is the first field; utime and stime are the 12th and 13th.
  const fields = statFields(stat);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / userHz;
}

/** Whether a workerd process is wrangler dev's proxy: the one listening on the port it was given. */
export function isProxy(pid, port) {
  try {
    return new RegExp(`--socket-addr=entry=[^\\0]*:${port}\\0`).test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}
