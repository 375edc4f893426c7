// Simultaneous pairing, for a bench that compares two variants of a server on a shared machine:
// both are loaded at the same moment, each in a process of its own, and each one's requests are
// divided by its own process's CPU time over the same window. What the machine does meanwhile
// (other work, its caches, the host's steal) then weighs on both alike, where blocks taken one
// after the other meet it in turn: two identical Workers of one workerd, measured in alternating
// 500 ms blocks, differed by ±15 % a block (quartiles; bench/analytics, 2026-11-29).
//
// Two processes are never quite alike (where their memory lies, their state), so a cycle runs
// each pairing both ways round, the variants swapping processes, and takes the geometric mean of
// the two ratios: the processes' own difference divides out (`swappedRatio`). Short blocks
// (tens of milliseconds) put the two ways round close together, before the machine moves on:
// in the same minute of load, 300 cycles of 50 ms resolved ±2.4 %, 30 of 500 ms ±7 to 9 %.

/**
 * Loads every arm at once for `ms`, each with `connections` requests in a closed loop: an arm is
 * `{ request(i), cpuSeconds() }`, `request` sending one request and reading its answer,
 * `cpuSeconds` its server process's CPU time so far (undefined where it cannot be read). Every
 * request sent before the block's end is answered and counted; an arm's time and CPU are read
 * at its own last answer. Answers per arm `{ done, seconds, cpuSeconds, cpuShare, rate, perCpuSecond }`.
 */
export async function loadTogether(arms, { ms, connections }) {
  const cpuBefore = arms.map((arm) => arm.cpuSeconds());
  const started = performance.now();
  const until = started + ms;
  return Promise.all(
    arms.map(async (arm, a) => {
      let done = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            await arm.request(done);
            done++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const cpu = arm.cpuSeconds() - cpuBefore[a];
      return { done, seconds, cpuSeconds: cpu, cpuShare: cpu / seconds, rate: done / seconds, perCpuSecond: done / cpu };
    }),
  );
}

/**
 * Variant x ÷ variant y from two blocks of one cycle in which they swapped processes:
 * `straight` ran x on the first process and y on the second, `swapped` y on the first and x on
 * the second, each a pair of values (first process, second). The geometric mean of the two
 * ratios, in which each process's own factor cancels.
 */
export const swappedRatio = (straight, swapped) => Math.sqrt((straight[0] / straight[1]) * (swapped[1] / swapped[0]));
