// bench/serve's protected ÷ open measure: short blocks of load on the open site and on its
// members-only copy, taking turns, straight to the Worker's own workerd (not through wrangler
// dev's proxy, whose CPU per request is about the Worker's own and which shares the machine's two
// cores with it and wrk). Each block's requests are divided by the Worker process's CPU time
// (what it can serve per CPU second, whatever else runs on the machine) and by the wall time.
// Paired ratios of blocks measured a fraction of a second apart, and an A/A of the open site
// against an open copy of it: what the bench's target line is judged on (run.mjs).
import { cpuDuring } from '../proc.mjs';
import { everyOrder, median, ratioCentre, resolutionOf, verdictOf } from '../statistics.mjs';
import { target } from '../mode.mjs';
import { wrk } from './wrk.mjs';

/**
 * The goal: protected ÷ open at least 0.90, on an instrument whose A/A stays within ±10 %: one
 * that tells a difference of the target's margin. The A/A compares single blocks, the
 * comparison a block with the geometric mean of two, so the comparison's own interval is the
 * narrower.
 */
const goal = { ratio: 0.9, resolution: 0.1 };

/**
 * One block of `ms` on `side` (`{ host, cookie }`) of `worker` (`{ origin, pids }`): requests per
 * second, requests per CPU second of the Worker's process, and the shares of a core the Worker
 * and wrk used during it.
 */
async function block(worker, path, side, { ms, threads, connections }) {
  const { result, seconds, cpu } = await cpuDuring({ worker: worker.pids }, () => wrk(`${worker.origin}${path}`, { ms, threads, connections, ...side }));
  const { requests, rps } = result;
  const measured = requests > 0 && cpu.worker > 0;
  return { measured, rate: rps, perCpuSecond: requests / cpu.worker, cpuPerRequest: cpu.worker / requests, workerShare: cpu.worker / seconds, wrkShare: cpu.children / seconds };
}

/**
 * `cycles` cycles (after `warmupCycles` not counted) of three blocks, one on each of `sides`:
 * the open site, the protected one and an open copy of the site (another site of the same
 * files), in each of the six orders in turn, so that each comes first, second and last alike,
 * the machine's drift weighs on all three, and each site follows another as often as the others
 * do (with the open site twice a cycle, it followed itself, while the protected one paid every
 * change of site). Per cycle and measure: protected ÷ the geometric mean of the two open
 * blocks, and copy ÷ open (the A/A).
 */
export async function measureBlocks(worker, path, sides, { cycles, warmupCycles, ...load }) {
  const orders = everyOrder(['open', 'protected', 'copy']);
  const measures = { perCpuSecond: { ratios: [], aa: [] }, rate: { ratios: [], aa: [] } };
  const blocks = [];
  let skipped = 0;
  for (let cycle = 0; cycle < warmupCycles + cycles; cycle++) {
    const cycleBlocks = {};
    for (const name of orders[cycle % orders.length]) cycleBlocks[name] = await block(worker, path, sides[name], load);
    if (cycle < warmupCycles) continue;
    // A block in which no answer arrived, or /proc saw no CPU, has no ratio: its cycle is left out and counted.
    if (!Object.values(cycleBlocks).every(({ measured }) => measured)) {
      skipped++;
      continue;
    }
    blocks.push(cycleBlocks);
    for (const [measure, { ratios, aa }] of Object.entries(measures)) {
      // The geometric mean: a block divided by its neighbours' arithmetic mean comes out low by
      // about a quarter of the blocks' squared relative spread (1 to 2 % here), since the mean of
      // two varies less than one block; divided by their geometric mean, a block like them is
      // above or below alike.
      ratios.push(cycleBlocks.protected[measure] / Math.sqrt(cycleBlocks.open[measure] * cycleBlocks.copy[measure]));
      aa.push(cycleBlocks.copy[measure] / cycleBlocks.open[measure]);
    }
  }
  const all = blocks.flatMap(Object.values);
  return {
    cycles: blocks.length,
    skipped,
    measures,
    cpuPerRequest: { open: median(blocks.flatMap((b) => [b.open.cpuPerRequest, b.copy.cpuPerRequest])), protected: median(blocks.map((b) => b.protected.cpuPerRequest)) },
    workerShare: median(all.map((b) => b.workerShare)),
    wrkShare: median(all.map((b) => b.wrkShare)),
  };
}

/**
 * Prints what the blocks measured for `label` and its target line, judged on requests per Worker
 * CPU second: met when the 95 % interval of protected ÷ open lies above 0.90 and the A/A
 * resolves ±10 %. `gate` (`{ remembered, verified }`, µs) is the protection check's own CPU per
 * request measured apart (./protection-cost.mjs), printed with the ratio it alone would make.
 */
export function reportProtection(label, { cycles, skipped, measures, cpuPerRequest, workerShare, wrkShare }, { ms, connections }, gate) {
  const goalText = `≥ ${goal.ratio.toFixed(2)}: its 95 % interval above it, on an A/A that resolves ±${100 * goal.resolution} %`;
  const line = `  ${label}: protected (member's cookie) ÷ open, requests per Worker CPU second (same cycle)`;
  if (cycles === 0) return target(`${line}: no cycle measured (every one had a block without an answer)`, goalText, false);
  const us = (seconds) => `${(seconds * 1e6).toFixed(0)} µs`;
  console.log(
    `  protected ÷ open, straight to the Worker's workerd: ${cycles} cycles of three ${ms} ms blocks, ${connections} connections${skipped ? ` (${skipped} more left out: a block without an answer)` : ''}; ` +
      `during a block the Worker used a median ${(100 * workerShare).toFixed(0)} % of a core${workerShare < 0.9 ? ' (not a core to itself: the machine was busy)' : ''}, wrk ${(100 * wrkShare).toFixed(0)} %`,
  );
  console.log(
    `  Worker CPU per request: open ${us(cpuPerRequest.open)}, protected ${us(cpuPerRequest.protected)}; the protection check alone (measured apart): ${gate.remembered.toFixed(1)} µs with a remembered grant ` +
      `(${gate.verified.toFixed(1)} µs verifying a new one): ${(cpuPerRequest.open / (cpuPerRequest.open + gate.remembered / 1e6)).toFixed(3)} expected`,
  );
  const judged = {};
  for (const [measure, what] of [['rate', 'requests/s'], ['perCpuSecond', 'requests per Worker CPU second']]) {
    const ratio = ratioCentre(measures[measure].ratios);
    const aa = ratioCentre(measures[measure].aa);
    judged[measure] = { ratio, aa };
    console.log(`  ${what}: A/A, open copy ÷ open: ${aa.text}: resolves ±${(100 * resolutionOf(aa)).toFixed(1)} %${measure === 'rate' ? `; protected ÷ open: ${ratio.text}` : ''}`);
  }
  const { ratio, aa } = judged.perCpuSecond;
  const { met, why } = verdictOf(ratio, aa, { atLeast: goal.ratio, resolves: goal.resolution, what: 'protection' });
  return target(`${line}: ${ratio.text}${why}`, goalText, met);
}
