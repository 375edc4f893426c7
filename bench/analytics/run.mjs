// `npm run bench:analytics`: what counting traffic costs serving, and how right it is
// (docs/analytics.md). Quick mode (bench/mode.mjs) shrinks every part: two counting locations,
// 200 requests, 300 visitors, 30 cycles (after 5 of warm-up) and 8 connections, 1 day read once,
// 1,000 paths, and sends every second (ANALYTICS_FLUSH_SECONDS=1) so that it waits little; it
// shows the bench runs and prints every target line, nothing more.
//
// On bench:edge's emulated edge (bench/edge/cluster.mjs) without injected round trips: seven
// locations, each a Worker of its own in one local workerd; the first four count, the last three
// run with ANALYTICS=off; the traffic queue and its consumer run in the Durable Objects' Worker.
// The cost part also starts a twin of it, a second workerd alike, and runs first.
//
// 1. Cost: BENCH_CYCLES cycles (default 3,000: about 14 min; 1,000 resolved ±1.5 to ±2.5 %, 3,000
//    ±0.8 %, where counting's ~2 % must be told from the target's 3 %; after BENCH_WARMUP_CYCLES of warm-up, default 20,
//    not measured), of a site of its own. A cycle is four blocks of BENCH_BLOCK_MS (default
//    50 ms); in each, a location of the edge and one of its twin are loaded at the same moment
//    with BENCH_CONNECTIONS concurrent requests each (default 16, each a new visitor):
//    counting ‖ not counting, not counting ‖ counting, then the A/A, two other locations that
//    do not count, both ways round (bench/paired-blocks.mjs). Per block and edge: requests per
//    second, and requests per CPU second of that edge's workerd (/proc: the time other processes
//    take does not enter it). Loaded at once, both edges meet the machine's other work and
//    its drift alike, where blocks taken in turn meet them one after the other (two identical
//    locations of one workerd then differed ±15 % a block); swapping edges divides out the two
//    processes' own difference (the geometric mean of the two ways round); each location is
//    loaded once a cycle at each edge, so none runs warmer than another; and short blocks
//    swap before the machine moves on. What remains is lumpy: V8's mark-compact collections,
//    77 to 300 ms each every few seconds of an isolate, land in some blocks and not others, so
//    each cycle's ratio is noisy (quartiles about ±10 %) but centred, and many cycles resolve
//    it. Printed for each measure: the Hodges–Lehmann centre of the cycles' ratios with its
//    95 % interval (bench/statistics.mjs `ratioCentre`) and quartiles; the A/A interval's
//    distance from 1 is what the instrument resolves. The target line takes the CPU measure
//    (requests per second where /proc is not): met only when the on ÷ off interval lies above
//    0.97 and the instrument resolves 3 % (else it says which failed); the raw
//    requests-per-second ratio is printed beside it. Also the share of a core the load
//    generator (this process) used: near 100 %, it, not serving, set the pace; and each
//    workerd's during a block. Then, to explain the ratio, counting's own CPU in workerd
//    (countServed on requests like these in one go, less the same loop without it) beside
//    workerd's CPU per request served not counting. Then the D1 statements and Durable Object
//    calls each location made per request, and the traffic queue's messages per 10 s at each
//    counting location (target ≤ 1).
// 2. Accuracy: requests, page views, HEADs, 404s and bots at the four counting locations; once
//    every location has sent (a request after ANALYTICS_FLUSH_SECONDS), the API's totals must
//    equal what was sent. Then 10,000 and 100,000 distinct (address, user agent) visitors
//    (BENCH_VISITORS), each twice, spread over the locations: the API's estimate for the day
//    within ±3 %.
// 3. Reading: BENCH_DAYS (31) days of hourly buckets, each with full top lists, read hourly
//    through the API BENCH_READS times (default 20): p50 (target ≤ 50 ms).
// 4. Storage: a site with BENCH_PATHS (100,000) distinct paths within a day (batches of 100
//    paths, as 404s too), its traffic object's bytes (target: within the caps, ≤ 1 MiB).
//
// BENCH_PARTS (default accuracy,cost,reading,storage) runs only the parts named.
import { startClusters } from '../edge/cluster.mjs';
import { percentile, sleep } from '../edge/serving.mjs';
import { announce, listSetting, quick, setting, target as line } from '../mode.mjs';
import { loadTogether, swappedRatio } from '../paired-blocks.mjs';
import { median, ratioCentre, resolutionOf, verdictOf } from '../statistics.mjs';

const cycles = setting('BENCH_CYCLES', 3000, 30);
const warmupCycles = setting('BENCH_WARMUP_CYCLES', 20, 5);
const blockMs = setting('BENCH_BLOCK_MS', 50);
const connections = setting('BENCH_CONNECTIONS', 16, 8);
const reads = setting('BENCH_READS', 20, 1);
const humans = setting('BENCH_REQUESTS', 8_000, 200);
const visitorCounts = listSetting('BENCH_VISITORS', [10_000, 100_000], [300]);
const days = setting('BENCH_DAYS', 31, 1);
const distinctPaths = setting('BENCH_PATHS', 100_000, 1_000);
const parts = new Set((process.env.BENCH_PARTS ?? 'accuracy,cost,reading,storage').split(','));
const counting = setting('BENCH_LOCATIONS', 4, 2);
/** The three locations that do not count: the first is compared with a counting one, the other two with each other (the A/A). */
const off = counting;
const [aaFirst, aaSecond] = [counting + 1, counting + 2];
const flushSeconds = quick ? 1 : 10;
const hourMs = 3_600_000;
const dayMs = 86_400_000;

const page = `<!doctype html><title>Bench</title>${'<p>Counted, not tracked.</p>'.repeat(60)}`;
const bot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

announce('bench:analytics');
// The cost part loads a second edge alike (its twin, a workerd of its own) at the same moments as the first.
const [cluster, twin] = await startClusters(parts.has('cost') ? 2 : 1, {
  locations: counting + 3,
  rttMs: 0,
  locationVars: (index) => ({ ANALYTICS_FLUSH_SECONDS: String(flushSeconds), ...(index >= off ? { ANALYTICS: 'off' } : {}) }),
});
const api = (path) => cluster.api(0, path);

/** Sends `count` requests made by `requestOf(i)` ({ location, path, method, headers }) to `edge`, `concurrency` at a time; answers the body bytes received. */
async function send(count, requestOf, concurrency = 64, { workers } = cluster) {
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const { location, path, method = 'GET', headers = {}, host = 'counted.example' } = requestOf(next++);
        const response = await workers[location].fetch(`http://${host}${path}`, { method, headers });
        bytes += (await response.arrayBuffer()).byteLength;
      }
    }),
  );
  return bytes;
}

const visitor = (i) => ({ 'cf-connecting-ip': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'user-agent': `Mozilla/5.0 (bench ${i % 13})` });

/** Waits out the flush interval, then has every counting location send (a request to another site ends each one's interval). */
async function flushAll() {
  await sleep((flushSeconds + 1) * 1000);
  await send(counting, (i) => ({ location: i, path: '/', host: 'marker.example' }), counting);
}

async function totalsOf(domain, query) {
  const response = await api(`/v2/sites/${domain}/analytics${query}`);
  if (response.status !== 200) throw new Error(`analytics of ${domain}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Polls the API until `done(body)`, for at most a minute. */
async function until(domain, query, done) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const body = await totalsOf(domain, query);
    if (done(body) || Date.now() > deadline) return body;
    await sleep(500);
  }
}

const today = () => {
  const day = new Date().toISOString().slice(0, 10);
  return `?interval=day&from=${day}&to=${new Date(Date.parse(day) + dayMs).toISOString().slice(0, 10)}`;
};

async function claimOf(domain) {
  return Date.parse(`${(await (await api(`/v2/sites/${domain}/info`)).json()).created}Z`);
}

try {
  for (const domain of ['counted.example', 'marker.example', ...visitorCounts.map((count) => `visitors-${count}.example`), 'history.example', 'paths.example']) {
    await cluster.deploy(0, domain, page);
  }

  // The cost part's site, at both edges: what it serves there counts apart from what accuracy sends.
  for (const edge of [cluster, twin].filter(Boolean)) await edge.deploy(0, 'cost.example', page);

  // Cost first, while neither edge has other work: the first edge's objects take in what accuracy counts for a while after.
  if (parts.has('cost')) await cost();
  if (parts.has('accuracy')) await accuracy();
  if (parts.has('reading')) await reading();
  if (parts.has('storage')) await storage();
} finally {
  await cluster.dispose();
  await twin?.dispose();
}

async function accuracy() {
  const kinds = (i) => (i % 10 === 0 ? { path: '/missing' } : i % 10 === 1 ? { path: '/', method: 'HEAD' } : { path: '/' });
  const pairs = Math.min(500, humans);
  const humanBytes = await send(humans, (i) => ({ location: i % counting, ...kinds(i), headers: visitor(i % pairs) }));
  await send(humans / 10, (i) => ({ location: i % counting, path: '/', headers: { 'user-agent': bot } }));
  await flushAll();
  // Whole numbers: humans * 1.1 is 220.00000000000003 for 200, which no count reaches (the poll then ran out its minute).
  const expectedAll = humans + humans / 10;
  const expected = { requests: humans, pageViews: humans * 0.8, bytes: humanBytes, status4xx: humans / 10 };
  const counted = await until('counted.example', today(), (body) => body.live.totals.requests + body.live.bots.requests >= expectedAll);
  const { totals, bots } = counted.live;
  const exact = totals.requests === expected.requests && totals.pageViews === expected.pageViews && totals.bytes === expected.bytes && totals.status4xx === expected.status4xx;
  console.log(`\nAccuracy at ${counting} locations: sent ${humans} requests (${expected.pageViews} page views, ${expected.bytes} bytes, ${expected.status4xx} 404s) and ${humans / 10} from a bot`);
  line(`Counted ${totals.requests} requests, ${totals.pageViews} page views, ${totals.bytes} bytes, ${totals.status4xx} 404s; bots apart: ${bots.requests}`, 'equal to what was sent', exact && bots.requests === humans / 10);
  line(`Visitors among ${pairs} distinct pairs: ${totals.visitors}`, '±3 %', Math.abs(totals.visitors - pairs) <= 0.03 * pairs);

  for (const distinct of visitorCounts) {
    const domain = `visitors-${distinct}.example`;
    await send(2 * distinct, (i) => ({ location: i % counting, path: '/', host: domain, headers: visitor(i % distinct) }));
    await flushAll();
    const body = await until(domain, today(), (b) => b.live.totals.requests >= 2 * distinct);
    const error = (body.live.totals.visitors - distinct) / distinct;
    line(`Unique visitors, ${distinct} distinct pairs each seen twice over ${counting} locations: estimated ${body.live.totals.visitors} (${(100 * error).toFixed(2)} %)`, '±3 %', Math.abs(error) <= 0.03);
  }

}

async function cost() {
  // A location that made no API call (location 0 deployed every site): its isolate is like the ones that do not count.
  const on = counting - 1;
  const edges = [cluster, twin];
  const stats = (edge, location) => edge.workers[location].fetch('http://bench.stats/').then((response) => response.json());
  const arm = (edge, location, firstVisitor) => ({
    request: async (i) => {
      const response = await edge.workers[location].fetch('http://cost.example/', { headers: visitor(firstVisitor + i) });
      await response.arrayBuffer();
    },
    cpuSeconds: () => edge.servingCpuSeconds(),
  });
  const compared = [on, off, aaFirst, aaSecond];
  for (const edge of edges) await send(400, (i) => ({ location: compared[i % 4], path: '/', host: 'cost.example', headers: visitor(i) }), 64, edge);
  // A cycle's four blocks, each a location of the first edge ‖ one of the second, loaded at once:
  // counting against not counting both ways round, then the A/A, two other locations that do
  // not count, both ways round. Each location is loaded once per cycle at each edge, so all four
  // have the same history (an isolate loaded more often runs warmer: with the A/A's pair sharing
  // the location not counting, it read 0.972, its interval 0.948–0.995). Cycles take the four in
  // turn from a different first, so that each comes first, second, third and last equally often.
  const pairings = [
    [on, off],
    [off, on],
    [aaFirst, aaSecond],
    [aaSecond, aaFirst],
  ];
  // Per location: requests answered and seconds loaded, over both edges.
  let served;
  const runCycle = async (c) => {
    const blocks = [];
    for (let i = 0; i < pairings.length; i++) {
      const p = (c + i) % pairings.length;
      const results = await loadTogether(
        pairings[p].map((location, e) => arm(edges[e], location, c * 10_000_000 + p * 1_000_000 + e * 100_000)),
        { ms: blockMs, connections },
      );
      pairings[p].forEach((location, e) => {
        served[location].done += results[e].done;
        served[location].seconds += results[e].seconds;
        served[location].cpu += results[e].cpuSeconds;
      });
      blocks[p] = results;
    }
    return blocks;
  };
  const noneServed = () => Object.fromEntries(compared.map((location) => [location, { done: 0, seconds: 0, cpu: 0 }]));
  // Warm-up cycles, not measured: each isolate's code is optimised, its caches filled, its tally and sketch grown.
  served = noneServed();
  for (let c = 0; c < warmupCycles; c++) await runCycle(c);
  served = noneServed();
  const before = await Promise.all(edges.map((edge) => Promise.all([stats(edge, on), stats(edge, off)])));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const measures = { rate: { ratios: [], floor: [] }, perCpuSecond: { ratios: [], floor: [] } };
  const cpuShares = [];
  for (let c = 0; c < cycles; c++) {
    const blocks = await runCycle(warmupCycles + c);
    const [onOff, offOn, againOff, offAgainst] = blocks;
    // A block too short to read a CPU time from (the machine gave workerd none) says nothing: its cycle is left out.
    if (blocks.flat().some((result) => !(result.perCpuSecond > 0 && Number.isFinite(result.perCpuSecond)))) continue;
    for (const [measure, { ratios, floor }] of Object.entries(measures)) {
      const values = (results) => results.map((result) => result[measure]);
      ratios.push(swappedRatio(values(onOff), values(offOn)));
      floor.push(swappedRatio(values(againOff), values(offAgainst)));
    }
    cpuShares.push(...blocks.flat().map((result) => result.cpuShare));
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const generatorShare = (cpu.user + cpu.system) / 1e6 / elapsed;
  const after = await Promise.all(edges.map((edge) => Promise.all([stats(edge, on), stats(edge, off)])));
  const cpuMeasured = cpuShares.length > 0 && !cpuShares.some(Number.isNaN);
  const rateOf = ({ done, seconds }) => (done / seconds).toFixed(0);
  const share = (value) => `${(100 * value).toFixed(0)} %`;
  const sortedShares = [...cpuShares].sort((x, y) => x - y);
  console.log(
    `\nCost: ${cycles} cycles (after ${warmupCycles} of warm-up) of four ${blockMs} ms blocks, each two edges alike (a workerd each) loaded at once, ${connections} connections each: ` +
      `counting ‖ not, not ‖ counting, then not ‖ not both ways round (the A/A), in ${elapsed.toFixed(0)} s; ${rateOf(served[on])} and ${rateOf(served[off])} requests/s at a counting and a not counting location while loaded; ` +
      `the load generator used ${share(generatorShare)} of a core${generatorShare > 0.9 ? ' (it may have set the pace: the ratios then say little)' : ''}` +
      (cpuMeasured ? `, each workerd a median ${share(median(cpuShares))} of one during a block (quartiles ${share(percentile(sortedShares, 0.25))}–${share(percentile(sortedShares, 0.75))})` : ''),
  );
  const judged = (measure, what) => {
    const onOff = ratioCentre(measures[measure].ratios);
    const aa = ratioCentre(measures[measure].floor);
    // What the instrument resolves: how far from 1 two identical locations may come out.
    const resolution = resolutionOf(aa);
    console.log(`${what}, the instrument's floor, not counting ÷ not counting (A/A): ${aa.text}: it resolves ±${(100 * resolution).toFixed(1)} %`);
    const { met, why } = verdictOf(onOff, aa, { atLeast: 0.97, resolves: 0.03, what: 'counting' });
    return { text: onOff.text, verdict: `${onOff.text}${why}`, met };
  };
  const goal = '≥ 0.97: its 95 % interval above it, on an instrument that resolves 3 %';
  // Requests per CPU second of each workerd: what serving can sustain, with the time other processes take left out.
  const perCpu = cpuMeasured ? judged('perCpuSecond', 'Requests per workerd CPU second') : undefined;
  const wall = judged('rate', 'Requests per second');
  if (perCpu) {
    console.log(`Requests per second, counting on ÷ off (loaded at once, both ways round): ${wall.text}`);
    await countingsOwnCpu(served[off].cpu / served[off].done);
    line(`Throughput counting on ÷ off, as requests per workerd CPU second (loaded at once, both ways round): ${perCpu.verdict}`, goal, perCpu.met);
  } else {
    line(`Throughput counting on ÷ off (loaded at once, both ways round): ${wall.verdict}`, goal, wall.met);
  }
  const delta = (index, name) => after[0][index][name] + after[1][index][name] - before[0][index][name] - before[1][index][name];
  // Counting's own: D1 statements and traffic object calls (counting makes none of either) per request; the coordinator's
  // calls are serving's (a live record refreshed once a minute per location), the same whether it counts or not.
  const countingCalls = delta(0, 'd1Statements') + delta(0, 'trafficObjectCalls');
  line(
    `D1 statements and Durable Object calls per served request made by counting: ${(countingCalls / served[on].done).toFixed(4)} (${countingCalls} for ${served[on].done} requests; ` +
      `the visitor secret asked ${delta(0, 'saltAsks')} times, in the background; serving's own coordinator calls ${delta(0, 'objectCalls')} counting, ${delta(1, 'objectCalls')} not)`,
    '0',
    countingCalls === 0,
  );
  const sent = after.map(([counted], e) => counted.trafficMessages - before[e][0].trafficMessages);
  // At most one send per interval, the first of them as soon as the phase begins.
  const allowed = Math.floor(elapsed / flushSeconds) + 1;
  line(
    `Traffic queue messages at full load: ${sent.join(' and ')} in ${elapsed.toFixed(1)} s from each edge's counting location (${served[on].done} requests in all)`,
    `≤ 1 per isolate per ${flushSeconds} s: ≤ ${allowed}`,
    Math.max(...sent) <= allowed,
  );
}

/**
 * Why the ratio is what it is: counting's own CPU in workerd, countServed run on requests like the
 * cost part's in one go at the counting location (bench/edge/location.ts), less the same loop
 * without it, in alternating rounds; beside `servedCpu`, workerd's CPU per request served without
 * counting in the cost part. Their quotient is what counting adds to a request's CPU.
 */
async function countingsOwnCpu(servedCpu) {
  const on = counting - 1;
  const batch = quick ? 2_000 : 10_000;
  const rounds = quick ? 3 : 15;
  const cpuOf = async (countingOn, first) => {
    const before = cluster.servingCpuSeconds();
    await (await cluster.workers[on].fetch(`http://bench.count/?n=${batch}&first=${first}&counting=${countingOn ? 1 : 0}`)).arrayBuffer();
    return cluster.servingCpuSeconds() - before;
  };
  // Each round's visitors new, as the cost part's are; one round first unmeasured, to optimise the loop.
  let first = 50_000_000;
  await cpuOf(true, first);
  const added = [];
  for (let r = 0; r < rounds; r++) {
    first += batch;
    const counted = await cpuOf(true, first);
    added.push((counted - (await cpuOf(false, first))) / batch);
  }
  const ownCpu = median(added);
  console.log(
    `Counting's own CPU in workerd: countServed on ${batch} such requests in one go, less the same loop without it, median of ${rounds} rounds: ${(ownCpu * 1e6).toFixed(1)} µs a request, ` +
      `beside ${(servedCpu * 1e6).toFixed(0)} µs of workerd CPU per request served not counting: ${(100 * ownCpu / servedCpu).toFixed(1)} % more (on ÷ off ${(servedCpu / (servedCpu + ownCpu)).toFixed(3)} from it)`,
  );
}

async function reading() {
  const history = 'history.example';
  const claim = await claimOf(history);
  const end = Date.now() - (Date.now() % hourMs);
  const hours = Array.from({ length: days * 24 }, (_, i) => end - (days * 24 - 1 - i) * hourMs);
  const list = (prefix, n) => Array.from({ length: n }, (_, i) => [`${prefix}${i}`, n - i]);
  const entry = (hour, paths) => ({ domain: history, claim, host: 'live', hour, deployment: 'bench', counts: [1000, 400, 1e6, 950, 20, 25, 5, 10, 5, 1000], tops: [paths, list('ref', 20).map(([v, c]) => [`${v}.example`, c]), list('C', 30), list('/gone/', 20)], other: [0, 0, 0, 0] });
  for (let start = 0; start < hours.length; start += 50) {
    await Promise.all(
      hours.slice(start, start + 50).map((hour, i) =>
        cluster.workers[0].fetch('http://bench.traffic/', {
          method: 'POST',
          body: JSON.stringify({ id: `history-${start + i}`, entries: [entry(hour, list('/page/', 100))], visitors: [{ domain: history, claim, host: 'live', hour, registers: Array.from({ length: 200 }, (_, r) => ((start + i) * 200 + r) % 16384 * 64 + 1 + (r % 5)) }] }),
        }),
      ),
    );
  }
  const monthQuery = `?interval=hour&from=${new Date(end + hourMs - days * dayMs).toISOString().slice(0, 19)}&to=${new Date(end + hourMs).toISOString().slice(0, 19)}`;
  await until(history, monthQuery, (body) => body.live.totals.requests === 1000 * hours.length);
  const timings = [];
  for (let i = 0; i < reads; i++) {
    const t = performance.now();
    await totalsOf(history, monthQuery);
    timings.push(performance.now() - t);
  }
  const readP50 = median(timings);
  console.log(`\nReading: ${hours.length} hourly buckets (100 pages, 20 referrers, 30 countries, 20 not-found paths each), ${reads} reads`);
  line(`Reading ${days} days hourly with top lists: p50 ${readP50.toFixed(1)} ms, p90 ${percentile([...timings].sort((a, b) => a - b), 0.9).toFixed(1)} ms`, '≤ 50 ms', readP50 <= 50);

}

async function storage() {
  const paths = 'paths.example';
  const pathsClaim = await claimOf(paths);
  const dayStart = Date.now() - (Date.now() % dayMs);
  const batches = distinctPaths / 100;
  for (let start = 0; start < batches; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, batches - start) }, (_, j) => {
        const b = start + j;
        const values = Array.from({ length: 100 }, (_, k) => [`/article/${b * 100 + k}`, 1]);
        const hour = dayStart + (b % 24) * hourMs;
        return cluster.workers[0].fetch('http://bench.traffic/', {
          method: 'POST',
          body: JSON.stringify({ id: `paths-${b}`, entries: [{ domain: paths, claim: pathsClaim, host: 'live', hour, deployment: 'bench', counts: [100, 100, 1e5, 100, 0, 0, 0, 0, 0, 0], tops: [values, [], [], values], other: [0, 0, 0, 0] }], visitors: [] }),
        });
      }),
    );
  }
  await until(paths, today(), (body) => body.live.totals.requests === distinctPaths);
  const bytes = await (await cluster.workers[0].fetch(`http://bench.traffic-size/${paths}`)).json();
  console.log(`\nStorage: ${distinctPaths} distinct paths (page views and 404s) within one day, in ${batches} batches`);
  line(`Bytes stored for the site: ${bytes} (${(bytes / 1024).toFixed(0)} KiB)`, '≤ 1 MiB: the caps hold', bytes <= 1024 * 1024);
}
