// CPU time of processes, from Linux's /proc, for the benches that divide work by the CPU it took
// (requests per CPU second): unlike requests per second, it leaves out the time other processes
// on a shared machine take from the one measured.
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds the processes `pids` have run, every thread of each (/proc's schedstat, in nanoseconds); a thread or process gone meanwhile counts nothing. */
export function cpuSecondsOf(pids) {
  let ns = 0;
  for (const pid of pids) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      // The process has ended.
    }
    for (const task of tasks) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread has ended.
      }
    }
  }
  return ns / 1e9;
}

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux port but Alpha's. */
const userHz = 100;

/**
 * CPU seconds (user and system) of this process's children that have ended and been waited for
 * (/proc/self/stat's cutime and cstime, in clock ticks): a tool run with execFile counts here once
 * it has exited.
 */
function endedChildrenCpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after "(comm) ": state is the first; cutime and cstime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
