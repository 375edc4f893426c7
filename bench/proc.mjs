// Linux's /proc, read for the benches: which processes run (to find the ones a bench started),
// and the CPU time they took, for the benches that divide work by it (requests per CPU second):
// unlike requests per second, it leaves out the time other processes on a shared machine take
// from the one measured.
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux port but Alpha's. */
export const userHz = 100;

/**
 * The fields of a /proc/<pid>/stat after "pid (comm) ": state first, then ppid, pgrp, …; comm may
 * hold spaces and parentheses, so they are read from its last closing parenthesis.
 */
export function statFields(stat) {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The entries of a folder of /proc/<pid>: none once the process has ended. */
function entriesOf(folder) {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/** Every process's pid, command name, parent and process group (none where there is no /proc); a process that ends meanwhile is left out. */
export function processTable() {
  if (!existsSync('/proc/self/stat')) return [];
  const table = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, parent, group] = statFields(stat);
      table.push({ pid: Number(entry), command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), parent: Number(parent), group: Number(group) });
    } catch {
      // The process ended while we looked.
    }
  }
  return table;
}

/** CPU seconds the processes `pids` have run, every thread of each (/proc's schedstat, in nanoseconds); a thread or process gone meanwhile counts nothing. */
export function cpuSecondsOf(pids) {
  let ns = 0;
  for (const pid of pids) {
    for (const task of entriesOf(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread has ended.
      }
    }
  }
  return ns / 1e9;
}

/**
 * CPU seconds (user and system) of this process's children that have ended and been waited for
 * (/proc/self/stat's cutime and cstime, in clock ticks): a tool run with execFile counts here once
 * it has exited.
 */
function endedChildrenCpuSeconds() {
  // After "(comm) ", state is the first field; cutime and cstime are the 14th and 15th.
  const fields = statFields(readFileSync('/proc/self/stat', 'utf8'));
  return (Number(fields[13]) + Number(fields[14])) / userHz;
}

/**
 * Runs `work` and answers its result, the wall seconds it took, and the CPU seconds each group of
 * `processes` (`{ name: pids }`) used meanwhile, with `children`: this process's children that
 * ended meanwhile (a load generator run for the work).
 */
export async function cpuDuring(processes, work) {
  const groups = Object.entries(processes);
  const before = groups.map(([, pids]) => cpuSecondsOf(pids));
  const childrenBefore = endedChildrenCpuSeconds();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const cpu = Object.fromEntries(groups.map(([name, pids], at) => [name, cpuSecondsOf(pids) - before[at]]));
  return { result, seconds, cpu: { ...cpu, children: endedChildrenCpuSeconds() - childrenBefore } };
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
    for (const fd of entriesOf(`/proc/${pid}/fd`)) {
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
