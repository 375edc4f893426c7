// `npm run bench:edge`: what serving costs a visitor far from the site's coordinator, R2 and D1.
//
// A simulation, in the bench only (bench/edge/location.ts wraps the service's Worker; nothing
// here is in the production path). BENCH_LOCATIONS emulated locations (default 8) are Workers
// of one local workerd, each with its own isolate, sharing one D1, one R2 bucket and the sites'
// coordinators, as Cloudflare's locations do. Every call a location makes to a coordinator, R2
// or D1 waits BENCH_RTT_MS first (default 80 ms: a cross-region round trip).
//
// Traffic, for BENCH_SECONDS (default 20): BENCH_SITES sparse sites (default 100) at
// BENCH_SITE_RATE requests/s each (default 1) and one hot site at BENCH_HOT_RATE requests/s
// (default 50), each request at a random location. (All locations share one workerd process on
// the machine's cores: past about 150 requests/s on 2 cores the emulation itself saturates and
// measures the machine, not the design.) Every BENCH_CHANGE_SECONDS (default 4) the
// hot site is redeployed, and every location is polled until it serves the new content.
//
// Prints the share of requests to warm sites (answered at that location in the last minute, and
// since the site's last change)
// that made a cross-region call, the latency those calls added (p50, p99), the hot site's
// coordinator calls, and the time from each change's 200 to every location serving it; then
// one line per target.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { SignJWT } from 'jose';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { unstable_readConfig } from 'wrangler';

const repo = new URL('../..', import.meta.url).pathname;
const locations = Number(process.env.BENCH_LOCATIONS ?? 8);
const rttMs = Number(process.env.BENCH_RTT_MS ?? 80);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const siteCount = Number(process.env.BENCH_SITES ?? 100);
const siteRate = Number(process.env.BENCH_SITE_RATE ?? 1);
const hotRate = Number(process.env.BENCH_HOT_RATE ?? 50);
const changeSeconds = Number(process.env.BENCH_CHANGE_SECONDS ?? 4);
/** A site is warm at a location that answered it within this long. */
const warmMs = 60_000;
/** The safety net the design may add: one refresh per location per minute. */
const safetyNetPerMinute = 1;
const hotDomain = 'hot.example';
const secret = 'bench-edge-secret';

const config = unstable_readConfig({ config: join(repo, 'wrangler.toml') });
const workDir = mkdtempSync(join(tmpdir(), 'sitehost-bench-edge-'));

async function bundle() {
  const built = spawnSync(process.execPath, [join(repo, 'dashboard/build.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('The dashboard build failed');
  const outfile = join(workDir, 'location.mjs');
  await build({
    entryPoints: [join(repo, 'bench/edge/location.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*'],
    loader: { '.json': 'json' },
    logLevel: 'warning',
  });
  return outfile;
}

function locationWorker(index, scriptPath) {
  const primary = index === 0;
  const durable = (className) => ({ className, useSQLite: true, ...(primary ? {} : { scriptName: 'loc0' }) });
  return {
    name: `loc${index}`,
    modules: true,
    scriptPath,
    modulesRoot: workDir,
    compatibilityDate: config.compatibility_date,
    bindings: {
      ...config.vars,
      AUTH_SECRET: secret,
      BENCH_RTT_MS: String(rttMs),
      BENCH_LOCATION: String(index),
      // Each location serves through its own named cache (bench/edge/location.ts); a change purges them all.
      EDGE_LOCAL_CACHES: Array.from({ length: locations }, (_, location) => `loc${location}`).join(','),
    },
    d1Databases: { DB: 'sitehost' },
    r2Buckets: { FILES: 'sitehost-files' },
    durableObjects: { SITES: durable('SiteCoordinator'), EVENTS: durable('EventLog') },
    queueProducers: { NOTIFICATIONS: 'sitehost-notifications', CERTIFICATES: 'sitehost-certificates', WEBHOOKS: 'sitehost-webhooks' },
    ...(primary
      ? { queueConsumers: { 'sitehost-notifications': { maxBatchTimeout: 1 }, 'sitehost-certificates': { maxBatchTimeout: 1 }, 'sitehost-webhooks': { maxBatchTimeout: 1 } } }
      : {}),
  };
}

async function migrate(mf) {
  const db = await mf.getD1Database('DB', 'loc0');
  const folder = join(repo, 'schema/migrations');
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.sql')).sort()) {
    const statements = readFileSync(join(folder, file), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('--'))
      .join('\n')
      .split(/;\s*$/m)
      .map((statement) => statement.trim())
      .filter(Boolean);
    await db.batch(statements.map((statement) => db.prepare(statement)));
  }
}

const token = await new SignJWT({ scope: 'deploy global_read' })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('github|bench')
  .setIssuer(config.vars.TOKEN_ISSUER)
  .setAudience(config.vars.AUTH_AUDIENCE)
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(secret));

async function deploy(worker, domain, html) {
  const form = new FormData();
  form.append('directory', new Blob([html], { type: 'text/html' }), 'index.html');
  // Encoded here: Miniflare's fetch does not take Node's FormData as a body.
  const encoded = new Response(form);
  const response = await worker.fetch(`http://localhost/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type') },
    body: await encoded.arrayBuffer(),
  });
  if (response.status !== 200) throw new Error(`Deploying ${domain}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

function percentile(sorted, share) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/** Exponential gaps: Poisson arrivals at `rate` per second. */
function nextGapMs(rate) {
  return (-Math.log(1 - Math.random()) / rate) * 1000;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const scriptPath = await bundle();
// Miniflare's documented (v4) option form, which it converts to its own.
const mf = new Miniflare(
  convertV4MiniflareOptions({
    workers: Array.from({ length: locations }, (_, index) => locationWorker(index, scriptPath)),
    defaultPersistRoot: join(workDir, 'state'),
  }),
);
try {
  await mf.ready;
  await migrate(mf);
  const workers = await Promise.all(Array.from({ length: locations }, (_, index) => mf.getWorker(`loc${index}`)));
  const sparse = Array.from({ length: siteCount }, (_, index) => `site-${index}.example`);
  for (let start = 0; start < sparse.length; start += 20) {
    await Promise.all(sparse.slice(start, start + 20).map((domain) => deploy(workers[0], domain, `<p>${domain}</p>`)));
  }
  await deploy(workers[0], hotDomain, '<p>version 0</p>');

  const results = [];
  const lastServed = new Map();
  /** When each site's last change answered 200. */
  const lastChanged = new Map();
  const inFlight = new Set();
  const request = (domain) => {
    const location = Math.floor(Math.random() * locations);
    const key = `${location} ${domain}`;
    const started = performance.now();
    // Warm: that location had answered the site (not merely been asked) within the last minute,
    // and since the site last changed: the first request after a change is a cold one by design.
    const warm = (lastServed.get(key) ?? -Infinity) > Math.max(started - warmMs, lastChanged.get(domain) ?? -Infinity);
    const done = workers[location]
      .fetch(`http://${domain}/`)
      .then(async (response) => {
        await response.arrayBuffer();
        lastServed.set(key, performance.now());
        results.push({
          domain,
          warm,
          ok: response.status === 200,
          latencyMs: performance.now() - started,
          remoteCalls: Number(response.headers.get('x-bench-remote-calls')),
          remoteMs: Number(response.headers.get('x-bench-remote-ms')),
        });
      })
      .catch(() => results.push({ domain, warm, ok: false, latencyMs: performance.now() - started, remoteCalls: 0, remoteMs: 0 }))
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const stream = async (domain, rate, until) => {
    for (let at = performance.now() + nextGapMs(rate); at < until; at += nextGapMs(rate)) {
      await sleep(Math.max(0, at - performance.now()));
      request(domain);
    }
  };

  const propagation = [];
  const changes = async (until) => {
    for (let version = 1; performance.now() + changeSeconds * 1000 < until; version++) {
      await sleep(changeSeconds * 1000);
      await deploy(workers[version % locations], hotDomain, `<p>version ${version}</p>`);
      const answered = performance.now();
      lastChanged.set(hotDomain, answered);
      const lastSeen = await Promise.all(
        workers.map(async (worker) => {
          for (;;) {
            const body = await (await worker.fetch(`http://${hotDomain}/`)).text();
            if (body.includes(`version ${version}<`)) return performance.now();
            await sleep(5);
          }
        }),
      );
      propagation.push(Math.max(...lastSeen) - answered);
    }
  };

  const statsBefore = await Promise.all(workers.map((worker) => worker.fetch('http://bench.stats/').then((r) => r.json())));
  const began = performance.now();
  const until = began + seconds * 1000;
  await Promise.all([stream(hotDomain, hotRate, until), ...sparse.map((domain) => stream(domain, siteRate, until)), changes(until)]);
  await Promise.all(inFlight);
  const elapsedSeconds = (performance.now() - began) / 1000;
  const statsAfter = await Promise.all(workers.map((worker) => worker.fetch('http://bench.stats/').then((r) => r.json())));
  const hotCalls = statsAfter.reduce((sum, stats, index) => sum + (stats.coordinatorCalls[hotDomain] ?? 0) - (statsBefore[index].coordinatorCalls[hotDomain] ?? 0), 0);

  const failed = results.filter((result) => !result.ok).length;
  const answered = results.filter((result) => result.ok);
  const warm = answered.filter((result) => result.warm);
  const warmRemote = warm.filter((result) => result.remoteCalls > 0).length;
  const warmLocal = warm.length === 0 ? 0 : 1 - warmRemote / warm.length;
  const added = answered.map((result) => result.remoteMs).sort((a, b) => a - b);
  const latency = answered.map((result) => result.latencyMs).sort((a, b) => a - b);
  const changeCount = propagation.length;
  const hotCallBudget = locations * (changeCount + 1) + locations * safetyNetPerMinute * Math.ceil(elapsedSeconds / 60);
  const slowest = propagation.length === 0 ? NaN : Math.max(...propagation);
  const sortedPropagation = [...propagation].sort((a, b) => a - b);

  const row = (label, value) => console.log(`| ${label} | ${value} |`);
  console.log(`\nbench:edge: ${locations} locations, ${rttMs} ms round trip, ${siteCount} sites at ${siteRate}/s, hot site at ${hotRate}/s, ${elapsedSeconds.toFixed(1)} s\n`);
  console.log('| Figure | Value |');
  console.log('|---|---|');
  row('Requests (failed)', `${results.length} (${failed})`);
  row('Requests to warm sites with a cross-region call', `${(100 * (1 - warmLocal)).toFixed(1)} % of ${warm.length}`);
  row('Added latency p50 / p99', `${percentile(added, 0.5)} ms / ${percentile(added, 0.99)} ms`);
  row('Latency p50 / p99 (whole request)', `${percentile(latency, 0.5).toFixed(1)} ms / ${percentile(latency, 0.99).toFixed(1)} ms`);
  row('Hot-site coordinator calls', `${hotCalls} (${(hotCalls / elapsedSeconds).toFixed(1)}/s; ${changeCount} changes)`);
  row('Change 200 → every location serving it, median / max', `${percentile(sortedPropagation, 0.5).toFixed(0)} ms / ${slowest.toFixed(0)} ms`);
  console.log('');
  const line = (figure, goal, met) => console.log(`${figure} (target ${goal}: ${met ? 'met' : 'MISSED'})`);
  line(`Warm requests with no cross-region call: ${(100 * warmLocal).toFixed(1)} %`, '≥ 99 %', warmLocal >= 0.99);
  line(`Added latency p50: ${percentile(added, 0.5)} ms`, '< 5 ms', percentile(added, 0.5) < 5);
  line(`Hot-site coordinator calls: ${hotCalls} for ${changeCount} changes over ${locations} locations`, `≤ ${hotCallBudget}, one per location per change + safety net`, hotCalls <= hotCallBudget);
  line(`Slowest change to reach every location: ${slowest.toFixed(0)} ms`, '≤ 1000 ms', slowest <= 1000);
} finally {
  await mf.dispose();
  rmSync(workDir, { recursive: true, force: true });
}
