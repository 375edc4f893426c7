// `npm run bench:analytics`: what counting traffic costs serving, and how right it is
// (docs/analytics.md). BENCH_QUICK=1 runs a smaller version of each part (a few thousand
// requests, 10,000 visitors only, shorter rounds).
//
// On bench:edge's emulated edge (bench/edge/cluster.mjs) without injected round trips: five
// locations, each a Worker of its own in one local workerd; the first four count, the fifth runs
// with ANALYTICS=off; the traffic queue and its consumer run in the Durable Objects' Worker.
//
// 1. Accuracy: requests, page views, HEADs, 404s and bots at the four counting locations; once
//    every location has sent (a request after ANALYTICS_FLUSH_SECONDS), the API's totals must
//    equal what was sent. Then 10,000 and 100,000 distinct (address, user agent) visitors, each
//    twice, spread over the locations: the API's estimate for the day within ±3 %.
// 2. Cost: BENCH_ROUNDS rounds (default 5; 3 quick) of BENCH_SECONDS seconds (default 4; 2 quick)
//    of BENCH_CONNECTIONS concurrent requests (default 16), taking turns between a counting
//    location and the one that does not count: the median rounds' requests/s, on ÷ off (target
//    ≥ 0.97); the D1 statements and Durable Object calls each location made per request; the
//    traffic queue's messages per 10 s at the counting location (target ≤ 1).
// 3. Reading: 31 days of hourly buckets, each with full top lists, read hourly through the API
//    (BENCH_READS times, default 20): p50 (target ≤ 50 ms).
// 4. Storage: a site with 100,000 distinct paths within a day (1,000 batches of 100 paths, 404s
//    too), its traffic object's bytes (target: within the caps, ≤ 1 MiB).
// BENCH_PARTS (default accuracy,cost,reading,storage) runs only the parts named.
import { startCluster } from '../edge/cluster.mjs';
import { percentile, sleep } from '../edge/serving.mjs';

const quick = process.env.BENCH_QUICK === '1';
const env = (name, full, short) => Number(process.env[name] ?? (quick ? short : full));
const rounds = env('BENCH_ROUNDS', 5, 3);
const seconds = env('BENCH_SECONDS', 4, 2);
const connections = env('BENCH_CONNECTIONS', 16, 16);
const reads = env('BENCH_READS', 20, 10);
const parts = new Set((process.env.BENCH_PARTS ?? 'accuracy,cost,reading,storage').split(','));
const counting = 4;
const off = counting;
const flushSeconds = 10;
const hourMs = 3_600_000;
const dayMs = 86_400_000;

const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);
const line = (figure, goal, met) => console.log(`${figure} (target ${goal}: ${met ? 'met' : 'MISSED'})`);
const page = `<!doctype html><title>Bench</title>${'<p>Counted, not tracked.</p>'.repeat(60)}`;
const bot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

// BENCH_NOISE=1 leaves counting on at the fifth location too: the cost part's ratio is then the noise floor.
const noise = process.env.BENCH_NOISE === '1';
const cluster = await startCluster({ locations: counting + 1, rttMs: 0, locationVars: (index) => (index === off && !noise ? { ANALYTICS: 'off' } : {}) });
const { workers } = cluster;
const api = (path) => cluster.api(0, path);

/** Sends `count` requests made by `requestOf(i)` ({ location, path, method, headers }), `concurrency` at a time; answers the body bytes received. */
async function send(count, requestOf, concurrency = 64) {
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
  for (const domain of ['counted.example', 'marker.example', 'visitors-10000.example', 'visitors-100000.example', 'history.example', 'paths.example']) {
    await cluster.deploy(0, domain, page);
  }

  if (parts.has('accuracy')) await accuracy();
  if (parts.has('cost')) await cost();
  if (parts.has('reading')) await reading();
  if (parts.has('storage')) await storage();
} finally {
  await cluster.dispose();
}

async function accuracy() {
  const humans = quick ? 2_000 : 8_000;
  const kinds = (i) => (i % 10 === 0 ? { path: '/missing' } : i % 10 === 1 ? { path: '/', method: 'HEAD' } : { path: '/' });
  const humanBytes = await send(humans, (i) => ({ location: i % counting, ...kinds(i), headers: visitor(i % 500) }));
  await send(humans / 10, (i) => ({ location: i % counting, path: '/', headers: { 'user-agent': bot } }));
  await flushAll();
  const expected = { requests: humans, pageViews: humans * 0.8, bytes: humanBytes, status4xx: humans / 10 };
  const counted = await until('counted.example', today(), (body) => body.live.totals.requests + body.live.bots.requests >= humans * 1.1);
  const { totals, bots } = counted.live;
  const exact = totals.requests === expected.requests && totals.pageViews === expected.pageViews && totals.bytes === expected.bytes && totals.status4xx === expected.status4xx;
  console.log(`\nAccuracy at ${counting} locations: sent ${humans} requests (${expected.pageViews} page views, ${expected.bytes} bytes, ${expected.status4xx} 404s) and ${humans / 10} from a bot`);
  line(`Counted ${totals.requests} requests, ${totals.pageViews} page views, ${totals.bytes} bytes, ${totals.status4xx} 404s; bots apart: ${bots.requests}`, 'equal to what was sent', exact && bots.requests === humans / 10);
  line(`Visitors among 500 distinct pairs: ${totals.visitors}`, '±3 %', Math.abs(totals.visitors - 500) <= 15);

  for (const distinct of quick ? [10_000] : [10_000, 100_000]) {
    const domain = `visitors-${distinct}.example`;
    await send(2 * distinct, (i) => ({ location: i % counting, path: '/', host: domain, headers: visitor(i % distinct) }));
    await flushAll();
    const body = await until(domain, today(), (b) => b.live.totals.requests >= 2 * distinct);
    const error = (body.live.totals.visitors - distinct) / distinct;
    line(`Unique visitors, ${distinct} distinct pairs each seen twice over ${counting} locations: estimated ${body.live.totals.visitors} (${(100 * error).toFixed(2)} %)`, '±3 %', Math.abs(error) <= 0.03);
  }

}

async function cost() {
  // A location that made no API call (location 0 deployed every site): its isolate is like the one that does not count.
  const on = counting - 1;
  const stats = async (location) => (await workers[location].fetch('http://bench.stats/')).json();
  await send(200, (i) => ({ location: i % 2 === 0 ? on : off, path: '/', headers: visitor(i) }));
  const before = [await stats(on), await stats(off)];
  const started = performance.now();
  const rates = { [on]: [], [off]: [] };
  const served = { [on]: 0, [off]: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const location of round % 2 === 0 ? [on, off] : [off, on]) {
      const until = performance.now() + seconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: connections }, async (_, c) => {
          while (performance.now() < until) {
            const response = await workers[location].fetch('http://counted.example/', { headers: visitor(c * 100_000 + done) });
            await response.arrayBuffer();
            done++;
          }
        }),
      );
      rates[location].push(done / seconds);
      served[location] += done;
    }
  }
  const elapsed = (performance.now() - started) / 1000;
  const after = [await stats(on), await stats(off)];
  const ratio = median(rates[on]) / median(rates[off]);
  console.log(`\nCost: ${rounds} rounds of ${seconds} s, ${connections} connections, taking turns: counting ${median(rates[on]).toFixed(0)} requests/s, not counting ${median(rates[off]).toFixed(0)} requests/s`);
  line(`Throughput counting on ÷ off: ${ratio.toFixed(3)}`, '≥ 0.97', ratio >= 0.97);
  const perRequest = (index, location) => (after[index].d1Statements - before[index].d1Statements + after[index].objectCalls - before[index].objectCalls) / served[location];
  line(`D1 statements and Durable Object calls per served request: ${perRequest(0, on).toFixed(4)} counting, ${perRequest(1, off).toFixed(4)} not (the visitor secret asked ${after[0].saltAsks - before[0].saltAsks} times, in the background)`, '0', perRequest(0, on) === 0);
  const messages = after[0].trafficMessages - before[0].trafficMessages;
  const perTen = messages / Math.max(1, elapsed / 10);
  line(`Traffic queue messages at full load: ${messages} in ${elapsed.toFixed(1)} s from the counting location (${perTen.toFixed(2)} per 10 s, ${served[on]} requests)`, '≤ 1 per isolate per 10 s', perTen <= 1.0001 || messages <= Math.ceil(elapsed / 10));

}

async function reading() {
  const history = 'history.example';
  const claim = await claimOf(history);
  const end = Date.now() - (Date.now() % hourMs);
  const hours = Array.from({ length: 31 * 24 }, (_, i) => end - (31 * 24 - 1 - i) * hourMs);
  const list = (prefix, n) => Array.from({ length: n }, (_, i) => [`${prefix}${i}`, n - i]);
  const entry = (hour, paths) => ({ domain: history, claim, host: 'live', hour, deployment: 'bench', counts: [1000, 400, 1e6, 950, 20, 25, 5, 10, 5, 1000], tops: [paths, list('ref', 20).map(([v, c]) => [`${v}.example`, c]), list('C', 30), list('/gone/', 20)], other: [0, 0, 0, 0] });
  for (let start = 0; start < hours.length; start += 50) {
    await Promise.all(
      hours.slice(start, start + 50).map((hour, i) =>
        workers[0].fetch('http://bench.traffic/', {
          method: 'POST',
          body: JSON.stringify({ id: `history-${start + i}`, entries: [entry(hour, list('/page/', 100))], visitors: [{ domain: history, claim, host: 'live', hour, registers: Array.from({ length: 200 }, (_, r) => ((start + i) * 200 + r) % 16384 * 64 + 1 + (r % 5)) }] }),
        }),
      ),
    );
  }
  const monthQuery = `?interval=hour&from=${new Date(end + hourMs - 31 * dayMs).toISOString().slice(0, 19)}&to=${new Date(end + hourMs).toISOString().slice(0, 19)}`;
  await until(history, monthQuery, (body) => body.live.totals.requests === 1000 * hours.length);
  const timings = [];
  for (let i = 0; i < reads; i++) {
    const t = performance.now();
    await totalsOf(history, monthQuery);
    timings.push(performance.now() - t);
  }
  const readP50 = median(timings);
  console.log(`\nReading: ${hours.length} hourly buckets (100 pages, 20 referrers, 30 countries, 20 not-found paths each), ${reads} reads`);
  line(`Reading 31 days hourly with top lists: p50 ${readP50.toFixed(1)} ms, p90 ${percentile([...timings].sort((a, b) => a - b), 0.9).toFixed(1)} ms`, '≤ 50 ms', readP50 <= 50);

}

async function storage() {
  const paths = 'paths.example';
  const pathsClaim = await claimOf(paths);
  const dayStart = Date.now() - (Date.now() % dayMs);
  for (let start = 0; start < 1000; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => {
        const b = start + j;
        const values = Array.from({ length: 100 }, (_, k) => [`/article/${b * 100 + k}`, 1]);
        const hour = dayStart + (b % 24) * hourMs;
        return workers[0].fetch('http://bench.traffic/', {
          method: 'POST',
          body: JSON.stringify({ id: `paths-${b}`, entries: [{ domain: paths, claim: pathsClaim, host: 'live', hour, deployment: 'bench', counts: [100, 100, 1e5, 100, 0, 0, 0, 0, 0, 0], tops: [values, [], [], values], other: [0, 0, 0, 0] }], visitors: [] }),
        });
      }),
    );
  }
  await until(paths, today(), (body) => body.live.totals.requests === 100_000);
  const bytes = await (await workers[0].fetch(`http://bench.traffic-size/${paths}`)).json();
  console.log(`\nStorage: 100,000 distinct paths (page views and 404s) within one day, in 1,000 batches`);
  line(`Bytes stored for the site: ${bytes} (${(bytes / 1024).toFixed(0)} KiB)`, '≤ 1 MiB: the caps hold', bytes <= 1024 * 1024);
}
