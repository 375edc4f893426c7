// `npm run bench:edge`: what serving costs a visitor far from the site's coordinator, R2 and D1,
// and what changes cost in calls to Cloudflare's API.
//
// A simulation, in the bench only (bench/edge/cluster.mjs; nothing here is in the production
// path). BENCH_LOCATIONS emulated locations (default 8) are Workers of one local workerd. Every
// call a location makes to a coordinator, R2 or D1, and every call to Cloudflare's API, waits
// BENCH_RTT_MS first (default 80 ms: a cross-region round trip). Cloudflare's zone API is a
// stand-in that enforces the Free plan's documented limits.
//
// 1. Serving, for BENCH_SECONDS (default 20): BENCH_SITES sparse sites (default 100) at
//    BENCH_SITE_RATE requests/s each (default 1) and one hot site at BENCH_HOT_RATE requests/s
//    (default 50), each request at a random location; every BENCH_CHANGE_SECONDS (default 4) the
//    hot site is redeployed and every location is polled until it serves the new content.
//    All locations share one workerd process on the machine's cores, so the bench first checks
//    that it measures the design and not the machine: the whole-request p50 of the requests that
//    made no cross-region call (warm, no injected latency) must stay within BENCH_MACHINE_MS
//    (default 50 ms). Past it, the run is repeated at half the load (sites and hot rate), then a
//    quarter; a run that cannot get there says so and exits non-zero, without design figures.
// 2. Purges: for each account-wide change rate in BENCH_CHANGE_RATES (default 0.1, 1, 10 and 100
//    per second), BENCH_CHANGE_SECONDS_EACH (default 10) of configuration edits over
//    BENCH_CHANGE_SITES sites (default 200; at least 3 edits a rate), at most
//    BENCH_MEASURED_PER_SECOND (default 3) of them measured from their 200 to every location
//    serving them. The API requests per second, the requests Cloudflare refused (429) and that
//    time. The machine is checked the same way: a warm request at a location and one at the
//    Worker that runs every Durable Object (one workerd runs every coordinator of the account,
//    which production spreads over many machines), 20 times a second each, within the bound by
//    p50; the injected round trips of the polls after each measured change, late by no more than
//    100 ms at p90 (a timer that fires late is the machine); and no change may take longer to
//    answer than the design lets it (its waits, then its purge's bound). Past any, the rate is
//    run again with Cloudflare's time (its window and lockout, and the service's budget) 2, 5,
//    then 10 times slower (BENCH_TIME_SCALES) and the changes sent as many times slower: the same
//    requests, batches and refusals per window, said in the output (the plan's URLs per second,
//    far above what these runs send, are not scaled). A rate the machine cannot carry even so
//    says so and exits non-zero, without purge figures.
//
// Prints the figures, the load used, and one line per target. Quick mode (bench/mode.mjs): 2
// locations, 4 s of serving 5 sites, 1 change/s over 5 sites for 3 s, at full load and real
// time only, the machine measured but not a reason to stop.
import { unstable_readConfig } from 'wrangler';
import { announce, listSetting, quick, setting, target } from '../mode.mjs';
import { deployAll, startCluster } from './cluster.mjs';
import { runChanges } from './purges.mjs';
import { percentile, runServing } from './serving.mjs';

const locations = setting('BENCH_LOCATIONS', 8, 2);
const rttMs = setting('BENCH_RTT_MS', 80);
const seconds = setting('BENCH_SECONDS', 20, 4);
const siteCount = setting('BENCH_SITES', 100, 5);
const siteRate = setting('BENCH_SITE_RATE', 1);
const hotRate = setting('BENCH_HOT_RATE', 50, 5);
const changeSeconds = setting('BENCH_CHANGE_SECONDS', 4, 2);
const machineBoundMs = setting('BENCH_MACHINE_MS', 50);
/** How late the measured polls' injected round trips may end at p90: a tenth of the target for a change to reach every location. */
const lagBoundMs = 100;
const changeRates = listSetting('BENCH_CHANGE_RATES', [0.1, 1, 10, 100], [1]);
const changeSecondsEach = setting('BENCH_CHANGE_SECONDS_EACH', 10, 3);
const changeSiteCount = setting('BENCH_CHANGE_SITES', 200, 5);
const measuredPerSecond = setting('BENCH_MEASURED_PER_SECOND', 3);
/** Fractions of the offered serving load tried, in turn, until the machine keeps up. */
const loadSteps = quick ? [1] : [1, 1 / 2, 1 / 4];
/** Time scales tried for a change rate, in turn, until the machine keeps up (bench/edge/cluster.mjs, scaledVars). */
const timeScales = listSetting('BENCH_TIME_SCALES', [1, 2, 5, 10], [1]);
/** Whether a machine that does not keep up stops the run: not in quick mode, which only shows that the bench runs. */
const machineStops = !quick;
/** How long a change waits by design besides its purge: round trips to its coordinator and Cloudflare, the store window and allowance, the memory hold (docs/serving.md), with room. */
const changeWaitsMs = 1500;
const purgeWaitMs = Number(unstable_readConfig({ config: new URL('../../wrangler.toml', import.meta.url).pathname }).vars.EDGE_PURGE_WAIT_MS);
/** The safety net the design may add: one refresh per location per minute. */
const safetyNetPerMinute = 1;

const row = (...cells) => console.log(`| ${cells.join(' | ')} |`);
const ms = (value) => (Number.isNaN(value) ? '–' : `${value.toFixed(0)} ms`);

/**
 * The serving run at the highest load step the machine carries, or undefined. Each step serves
 * sites of its own, deployed just before: none is cached from an earlier step (whose records
 * would expire within this one, a once-a-minute refresh the first step does not see).
 */
async function servingWithinTheMachine(cluster) {
  for (const [attempt, step] of loadSteps.entries()) {
    const sites = Array.from({ length: Math.max(1, Math.round(siteCount * step)) }, (_, index) => `site-${index}.attempt-${attempt}.example`);
    const hotDomain = `hot.attempt-${attempt}.example`;
    await deployAll(cluster, sites);
    await cluster.deploy(0, hotDomain, '<p>version 0</p>');
    const load = { sites, siteRate, hotDomain, hotRate: hotRate * step, changeSeconds, seconds };
    const described = `${load.sites.length} sites at ${siteRate}/s, hot site at ${load.hotRate}/s (${step === 1 ? 'the full load' : `${step} of the load`})`;
    const run = await runServing(cluster, load);
    const local = run.results.filter((result) => result.ok && result.remoteCalls === 0).map((result) => result.latencyMs).sort((a, b) => a - b);
    const machine = percentile(local, 0.5);
    if (machine <= machineBoundMs || !machineStops) {
      const verdict = machine <= machineBoundMs ? `≤ ${machineBoundMs} ms: the machine keeps up` : `> ${machineBoundMs} ms: the machine is the bottleneck (quick mode goes on)`;
      console.log(`Load used: ${described}; whole-request p50 without a cross-region call ${machine.toFixed(1)} ms ${verdict}.`);
      return { ...run, load, machine };
    }
    console.log(`Load ${described}: whole-request p50 without a cross-region call ${ms(machine)} > ${machineBoundMs} ms: the machine is the bottleneck, not the design.`);
  }
  return undefined;
}

/**
 * The changes at `rate` per second at the smallest time scale the machine carries, or undefined.
 * A time scale k runs Cloudflare's window and lockout and the service's budget k times slower
 * and sends the changes k times slower: the same requests, batches and refusals per window, on a
 * machine that could not run one workerd's worth of every coordinator at the full rate.
 */
async function changesWithinTheMachine(cluster, rate, { pool, probes, idle, versions }) {
  const count = Math.max(3, Math.round(rate * changeSecondsEach));
  for (const timeScale of timeScales.filter((scale) => scale >= cluster.timeScale)) {
    if (timeScale !== cluster.timeScale) await cluster.rescale(timeScale);
    const run = await runChanges(cluster, { rate, count, pool, probes, measuredPerSecond, idle, idleRate: 20, versions });
    const machine = Math.max(run.idleP50, run.objectsP50);
    // Slower than the design lets any change be (its waits, then its purge's bound), a change queued on the machine.
    const changeBoundMs = changeWaitsMs + purgeWaitMs * timeScale;
    const at = `At ${rate} changes/s${timeScale === 1 ? '' : ` (time scale ${timeScale}: ${rate / timeScale} changes per second of the machine's)`}`;
    const figures =
      `whole-request p50 without a cross-region call ${ms(run.idleP50)} at a location and ${ms(run.objectsP50)} at the Durable Objects' Worker ` +
      `(bound ${machineBoundMs} ms), the measured polls' round trips late by ${ms(run.lagP90)} at p90 (bound ${lagBoundMs} ms); ` +
      `slowest change answered in ${ms(run.answerMax)} (the design's bound ${changeBoundMs} ms)`;
    const keepsUp = machine <= machineBoundMs && run.lagP90 <= lagBoundMs && run.answerMax <= changeBoundMs;
    if (keepsUp || !machineStops) {
      console.log(`${at}: ${figures}: ${keepsUp ? 'the machine keeps up' : 'the machine is the bottleneck (quick mode goes on)'}.`);
      return run;
    }
    console.log(`${at}: ${figures}: the machine is the bottleneck.`);
  }
  return undefined;
}

function printServing({ results, propagation, hotCalls, elapsedSeconds, load }) {
  const failed = results.filter((result) => !result.ok).length;
  const answered = results.filter((result) => result.ok);
  const warm = answered.filter((result) => result.warm);
  const warmLocal = warm.length === 0 ? 0 : 1 - warm.filter((result) => result.remoteCalls > 0).length / warm.length;
  const added = answered.map((result) => result.remoteMs).sort((a, b) => a - b);
  const latency = answered.map((result) => result.latencyMs).sort((a, b) => a - b);
  const hotCallBudget = locations * (propagation.length + 1) + locations * safetyNetPerMinute * Math.ceil(elapsedSeconds / 60);
  const slowest = propagation.length === 0 ? NaN : Math.max(...propagation);
  const sorted = [...propagation].sort((a, b) => a - b);
  console.log(`\nServing: ${locations} locations, ${rttMs} ms round trip, ${load.sites.length} sites at ${load.siteRate}/s, hot site at ${load.hotRate}/s, ${elapsedSeconds.toFixed(1)} s\n`);
  row('Figure', 'Value');
  row('---', '---');
  row('Requests (failed)', `${results.length} (${failed})`);
  row('Requests to warm sites with a cross-region call', `${(100 * (1 - warmLocal)).toFixed(1)} % of ${warm.length}`);
  row('Added latency p50 / p99', `${percentile(added, 0.5)} ms / ${percentile(added, 0.99)} ms`);
  row('Latency p50 / p99 (whole request)', `${percentile(latency, 0.5).toFixed(1)} ms / ${percentile(latency, 0.99).toFixed(1)} ms`);
  row('Hot-site coordinator calls', `${hotCalls} (${(hotCalls / elapsedSeconds).toFixed(1)}/s; ${propagation.length} changes)`);
  row('Change 200 → every location serving it, median / max', `${ms(percentile(sorted, 0.5))} / ${ms(slowest)}`);
  console.log('');
  target(`Warm requests with no cross-region call: ${(100 * warmLocal).toFixed(1)} %`, '≥ 99 %', warmLocal >= 0.99);
  target(`Added latency p50: ${percentile(added, 0.5)} ms`, '< 5 ms', percentile(added, 0.5) < 5);
  target(`Hot-site coordinator calls: ${hotCalls} for ${propagation.length} changes over ${locations} locations`, `≤ ${hotCallBudget}, one per location per change + safety net`, hotCalls <= hotCallBudget);
  target(`Slowest change to reach every location: ${ms(slowest)}`, '≤ 1000 ms', slowest <= 1000);
}

function printPurges(runs) {
  console.log(`\nPurges: changes at account-wide rates over ${changeSiteCount} sites; the zone API stand-in enforces the Free plan's limits (1,200 requests per 5 min, 800 URLs/s, 100 URLs a request).`);
  console.log('At a time scale k, Cloudflare\'s time (its window and lockout, and the service\'s budget) runs k times slower and the changes arrive');
  console.log('k times slower: rates and requests per second are per second of that time; the time to every location is the machine\'s.\n');
  row('Changes/s', 'Time scale', 'Changes (answered pending)', 'API requests/s (busiest second)', 'Refused (429)', 'Largest request', 'Change sent → 200, p50 / max', 'Change 200 → every location, p50 / max (changes measured)', 'Machine: p50 location / objects, p90 round trips late');
  row('---', '---', '---', '---', '---', '---', '---', '---', '---');
  for (const run of runs) {
    row(
      run.rate,
      run.timeScale,
      `${run.answers.ok}${run.answers.failed ? ` + ${run.answers.failed} failed` : ''} (${run.answers.pending})`,
      `${run.requestsPerSecond.toFixed(2)} (${run.busiestSecond})`,
      `${run.refused}${run.otherwiseFailed ? ` (+ ${run.otherwiseFailed} other failures)` : ''}`,
      `${run.largestBatch} URLs`,
      `${ms(run.answerP50)} / ${ms(run.answerMax)}`,
      `${ms(run.propagationP50)} / ${ms(run.propagationMax)} (${run.measured}${run.unreached ? `; ${run.unreached} never` : ''})`,
      `${run.idleP50.toFixed(1)} / ${run.objectsP50.toFixed(1)} / ${run.lagP90.toFixed(0)} ms`,
    );
  }
  console.log('');
  for (const run of runs.filter((candidate) => candidate.rate === 100 || candidate.rate === 1)) {
    const at = `At ${run.rate} change${run.rate === 1 ? '' : 's'}/s`;
    const failures = [run.otherwiseFailed && `${run.otherwiseFailed} API requests failed otherwise`, run.answers.failed && `${run.answers.failed} changes failed`].filter(Boolean);
    target(`${at}: ${run.refused} API requests refused${failures.map((failure) => `, ${failure}`).join('')}`, '0', run.refused === 0 && failures.length === 0);
    target(`${at}: ${run.requestsPerSecond.toFixed(2)} API requests/s`, '≤ 3', run.requestsPerSecond <= 3);
    const reached = run.unreached === 0 && run.measured > 0;
    target(`${at}: slowest change to reach every location ${reached ? ms(run.propagationMax) : 'never'}`, '≤ 1000 ms', reached && run.propagationMax <= 1000);
  }
}

announce('bench:edge');
const cluster = await startCluster({ locations, rttMs });
try {
  const pool = Array.from({ length: changeSiteCount }, (_, index) => `change-${index}.example`);
  const probes = Array.from({ length: locations }, (_, index) => `probe-${index}.example`);
  const idle = 'idle.example';
  const serving = await servingWithinTheMachine(cluster);
  if (!serving) {
    console.log(`\nbench:edge: even at ${loadSteps.at(-1)} of the load the machine is the bottleneck; no design figures printed. Run it on a quieter machine.`);
    process.exitCode = 1;
  } else {
    printServing(serving);
    await deployAll(cluster, [...pool, ...probes, idle]);
    const runs = [];
    const versions = new Map();
    for (const rate of changeRates) {
      const run = await changesWithinTheMachine(cluster, rate, { pool, probes, idle, versions });
      if (!run) {
        console.log(`\nAt ${rate} changes/s the machine is the bottleneck even with Cloudflare's time ${timeScales.at(-1)} times slower; no purge figures printed. Run it on a quieter machine.`);
        process.exitCode = 1;
        break;
      }
      runs.push(run);
    }
    if (process.exitCode !== 1) printPurges(runs);
  }
} finally {
  await cluster.dispose();
}
