// bench/serve's protected ÷ open measure: short blocks of load on the open site and on its
// members-only copy, taking turns, straight to the Worker's own workerd (not through wrangler
// dev's proxy, whose CPU per request is about the Worker's own and which shares the same two
// cores), each block's requests divided by the Worker process's CPU time as well as by the wall
// time. Paired ratios of blocks measured a fraction of a second apart, and an A/A of the open site against
// itself: what the bench's target line is judged on (run.mjs).
import { cpuSecondsOf, endedChildrenCpuSeconds } from '../process-cpu.mjs';
import { everyOrder, median, ratioSummary, resolutionOf } from '../statistics.mjs';
import { target } from '../mode.mjs';
import { wrk } from './wrk.mjs';

/**
 * The goal: protected ÷ open at least 0.90, on an instrument whose A/A stays within ±10 %: one
 * that tells a difference of the target's margin. The A/A compares single blocks, the
 * comparison a block with the mean of two, so the comparison's own interval is the narrower.
 */
const goal = { ratio: 0.9, resolution: 0.1 };

/**
 * One block of `ms` on `side` (`{ host, cookie }`) of `worker` (`{ origin, pids }`): requests per
 * second, requests per CPU second of the Worker's process, and the shares of a core the Worker
 * and wrk (this process's children once ended) used during it.
 */
async function block(worker, path, side, { ms, threads, connections }) {
  const cpuBefore = cpuSecondsOf(worker.pids);
  const wrkBefore = endedChildrenCpuSeconds();
  const started = performance.now();
  const { requests, rps } = await wrk(`${worker.origin}${path}`, { ms, threads, connections, ...side });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSecondsOf(worker.pids) - cpuBefore;
  const measured = requests > 0 && cpu > 0;
  return { measured, rate: rps, perCpuSecond: requests / cpu, cpuPerRequest: cpu / requests, workerShare: cpu / seconds, wrkShare: (endedChildrenCpuSeconds() - wrkBefore) / seconds };
}

/**
 * `cycles` cycles (after `warmupCycles` not counted) of three blocks: the open site, the
 * protected one, the open one again, in each of the six orders in turn, so that each comes
 * first, second and last alike and the machine's drift weighs on all three. Per cycle and
 * measure: protected ÷ the mean of the two open blocks, and open-again ÷ open (the A/A).
 */
export async function measureProtectedPairs(worker, path, sides, { cycles, warmupCycles, ...load }) {
  const orders = everyOrder(['open', 'protected', 'openAgain']);
  const measures = { perCpuSecond: { ratios: [], aa: [] }, rate: { ratios: [], aa: [] } };
  const blocks = [];
  let skipped = 0;
  for (let cycle = 0; cycle < warmupCycles + cycles; cycle++) {
    const cycleBlocks = {};
    for (const name of orders[cycle % orders.length]) cycleBlocks[name] = await block(worker, path, name === 'protected' ? sides.protected : sides.open, load);
    // A block in which no answer arrived, or /proc saw no CPU, has no ratio: its cycle is left out and counted.
    if (cycle < warmupCycles) continue;
    if (!Object.values(cycleBlocks).every(({ measured }) => measured)) {
      skipped++;
      continue;
    }
    blocks.push(cycleBlocks);
    for (const [measure, { ratios, aa }] of Object.entries(measures)) {
      ratios.push(cycleBlocks.protected[measure] / ((cycleBlocks.open[measure] + cycleBlocks.openAgain[measure]) / 2));
      aa.push(cycleBlocks.openAgain[measure] / cycleBlocks.open[measure]);
    }
  }
  const all = blocks.flatMap(Object.values);
  return {
    skipped,
    measures,
    cpuPerRequest: { open: median(blocks.flatMap((b) => [b.open.cpuPerRequest, b.openAgain.cpuPerRequest])), protected: median(blocks.map((b) => b.protected.cpuPerRequest)) },
    workerShare: median(all.map((b) => b.workerShare)),
    wrkShare: median(all.map((b) => b.wrkShare)),
  };
}

/**
 * Prints what the pairs measured for `label` and its target line, judged on requests per Worker
 * CPU second: met when the 95 % interval of protected ÷ open lies above 0.90 and the A/A
 * resolves ±10 %; `gate` (`{ remembered, verified }`, µs) is the protection check's own CPU per
 * request measured apart (./protection-cost.mjs), printed as what the ratio should be.
 */
export function reportProtectedPairs(label, { skipped, measures, cpuPerRequest, workerShare, wrkShare }, { cycles, ms }, gate) {
  const goalText = `≥ ${goal.ratio.toFixed(2)}: its 95 % interval above it, on an A/A that resolves ±${100 * goal.resolution} %`;
  const line = `  ${label}: protected (member's cookie) ÷ open, requests per Worker CPU second (same cycle)`;
  if (skipped === cycles) return target(`${line}: no cycle measured (every one had a block without an answer)`, goalText, false);
  const us = (seconds) => `${(seconds * 1e6).toFixed(0)} µs`;
  console.log(
    `  protected ÷ open: ${cycles - skipped} cycles of three ${ms} ms blocks${skipped ? ` (${skipped} left out: a block without an answer)` : ''} straight to the Worker's workerd; during a block the Worker used a median ${(100 * workerShare).toFixed(0)} % of a core` +
      `${workerShare < 0.9 ? ' (not a core to itself: the machine was busy, or the load did not saturate it)' : ''}, wrk ${(100 * wrkShare).toFixed(0)} %`,
  );
  console.log(
    `  Worker CPU per request: open ${us(cpuPerRequest.open)}, protected ${us(cpuPerRequest.protected)}; the protection check alone (measured apart): ${gate.remembered.toFixed(1)} µs with a remembered grant ` +
      `(${gate.verified.toFixed(1)} µs verifying a new one), so protection alone would make it ${(cpuPerRequest.open / (cpuPerRequest.open + gate.remembered / 1e6)).toFixed(3)}`,
  );
  const judged = {};
  for (const [measure, what] of [['rate', 'requests/s'], ['perCpuSecond', 'requests per Worker CPU second']]) {
    const ratio = ratioSummary(measures[measure].ratios);
    const aa = ratioSummary(measures[measure].aa);
    judged[measure] = { ratio, resolution: resolutionOf(aa) };
    console.log(`  ${what}: A/A, open ÷ open: ${aa.text}: resolves ±${(100 * resolutionOf(aa)).toFixed(1)} %${measure === 'rate' ? `; protected ÷ open: ${ratio.text}` : ''}`);
  }
  const { ratio, resolution } = judged.perCpuSecond;
  const met = ratio.low >= goal.ratio && resolution < goal.resolution;
  // Why not, when not: an instrument too coarse, a real cost, or an interval reaching below the goal.
  const why = met
    ? ''
    : resolution >= goal.resolution
      ? `; the A/A resolved ±${(100 * resolution).toFixed(1)} % only: more cycles (BENCH_CYCLES) or a quieter machine`
      : ratio.high < goal.ratio
        ? '; protection costs more than 10 %'
        : `; its interval reaches below ${goal.ratio.toFixed(2)}`;
  return target(`${line}: ${ratio.text}${why}`, goalText, met);
}
