// The emulated edge for `npm run bench:edge` (bench/edge/run.mjs): `locations` Workers of one
// local workerd, each the service's Worker with its own isolate and its own named cache
// (bench/edge/location.ts), sharing one D1, one R2 bucket and the Durable Objects (hosted by a
// Worker of their own), as Cloudflare's locations do; and Cloudflare's zone API as a stand-in that enforces its limits
// (bench/edge/zone-api.ts), which every request a location sends out reaches. Purges go the
// production way (EDGE_PURGE=cloudflare): the account object batches them to the stand-in.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { SignJWT } from 'jose';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { migrateLocalDatabase } from '../../scripts/local-migrations.mjs';
import { cpuSecondsOf, processTable } from '../proc.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const secret = 'bench-edge-secret';
/** A limit the bench never reaches. */
const unlimited = 1_000_000;

async function bundle(workDir, entry, name) {
  const outfile = join(workDir, `${name}.mjs`);
  await build({
    entryPoints: [join(repo, entry)],
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

/**
 * A location (`loc<index>`), or with `index` 'objects' the Worker that hosts the Durable Objects
 * and the queue consumers: a region of its own, as they are in production, so that no location's
 * isolate also runs every coordinator.
 */
function worker(index, { rttMs, config, workDir, scriptPath, timeScale, locationVars }) {
  const objects = index === 'objects';
  const durable = (className) => ({ className, useSQLite: true, ...(objects ? {} : { scriptName: 'objects' }) });
  return {
    name: objects ? 'objects' : `loc${index}`,
    modules: true,
    scriptPath,
    modulesRoot: workDir,
    compatibilityDate: config.compatibility_date,
    bindings: {
      ...config.vars,
      AUTH_SECRET: secret,
      BENCH_RTT_MS: String(rttMs),
      BENCH_LOCATION: String(index),
      EDGE_PURGE: 'cloudflare',
      CLOUDFLARE_ZONE_ID: 'bench-zone',
      CLOUDFLARE_API_TOKEN: 'bench-token',
      ...scaledVars(config.vars, timeScale),
      // One user makes every change of the account here: its API rate limit and quotas are lifted.
      API_REQUESTS_PER_MINUTE: String(unlimited),
      ANONYMOUS_REQUESTS_PER_MINUTE: String(unlimited),
      DEPLOYS_PER_HOUR: String(unlimited),
      MAX_SITES_PER_USER: String(unlimited),
      MAX_UNFINISHED_DEPLOYMENTS: String(unlimited),
      ...(objects ? {} : locationVars?.(index)),
    },
    ratelimits: {
      USER_RATE_LIMITER: { namespace_id: '2601', simple: { limit: unlimited, period: 60 } },
      ADDRESS_RATE_LIMITER: { namespace_id: '2602', simple: { limit: unlimited, period: 60 } },
      SIGN_IN_RATE_LIMITER: { namespace_id: '2603', simple: { limit: 10, period: 60 } },
    },
    d1Databases: { DB: localDatabaseId(config) },
    r2Buckets: { FILES: 'sitehost-files' },
    durableObjects: {
      SITES: durable('SiteCoordinator'),
      EVENTS: durable('EventLog'),
      CLOUDFLARE_API: durable('CloudflareAccount'),
      SITE_TRAFFIC: durable('SiteTraffic'),
      VISITOR_SALT: durable('VisitorSalt'),
    },
    queueProducers: { NOTIFICATIONS: 'sitehost-notifications', CERTIFICATES: 'sitehost-certificates', WEBHOOKS: 'sitehost-webhooks', TRAFFIC: 'sitehost-traffic' },
    outboundService: 'zone-api',
    // Requested straight on a port of its own: Miniflare's proxy (getWorker().fetch) costs ten times the request.
    unsafeDirectSockets: [{ port: 0 }],
    ...(objects
      ? {
          queueConsumers: {
            'sitehost-notifications': { maxBatchTimeout: 1 },
            'sitehost-certificates': { maxBatchTimeout: 1 },
            'sitehost-webhooks': { maxBatchTimeout: 1 },
            'sitehost-traffic': { maxBatchTimeout: 1, maxBatchSize: 20, maxRetries: 5 },
          },
        }
      : {}),
  };
}

/** The id wrangler gives the local database of the `DB` binding (its `d1 migrations apply --local` and `dev` alike): the same SQLite file. */
function localDatabaseId(config) {
  const database = config.d1_databases.find(({ binding }) => binding === 'DB');
  return database.preview_database_id ?? database.database_id;
}

/**
 * The settings that count Cloudflare's time, `timeScale` times slower: its window (and with it the
 * spacing of purge requests) and how long a change waits for its purge. At a time scale k, changes
 * arriving k times slower meet the global limit in the same numbers as changes at full speed: the
 * same URLs per request, the same requests per window. The plan's URLs per second stay as they
 * are (k times more lenient): requests of at most 100 URLs, at most 2.67 a second, stay far below
 * them at any scale.
 */
function scaledVars(vars, timeScale) {
  return {
    CLOUDFLARE_API_WINDOW_SECONDS: String(Number(vars.CLOUDFLARE_API_WINDOW_SECONDS) * timeScale),
    EDGE_PURGE_WAIT_MS: String(Number(vars.EDGE_PURGE_WAIT_MS) * timeScale),
  };
}

/**
 * A Worker's `fetch`, over its direct socket: node:http, since fetch may not set `Host`, which
 * selects the site; `agent` keeps connections open between requests. Answers a Response with the
 * body read. A request sent on a kept connection that the Worker's side closed at that moment is
 * sent again once, on a new one, as Node's documentation advises (`request.reusedSocket`): it
 * was not read.
 */
function directFetcher(base, agent) {
  const send = (url, init, retried) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const sent = request(
        { host: base.hostname, port: base.port, path: target.pathname + target.search, method: init.method ?? 'GET', headers: { ...init.headers, host: target.host }, agent },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
            const empty = response.statusCode === 204 || response.statusCode === 304;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status: response.statusCode, headers }));
          });
        },
      );
      sent.on('error', (error) => (sent.reusedSocket && error.code === 'ECONNRESET' && !retried ? send(url, init, true).then(resolve, reject) : reject(error)));
      sent.end(init.body === undefined ? undefined : Buffer.from(init.body));
    });
  return { fetch: (url, init = {}) => send(url, init, false) };
}

/** The processes this one started that run `command` (Linux's /proc; none elsewhere). */
function childProcesses(command) {
  return processTable()
    .filter((child) => child.command === command && child.parent === process.pid)
    .map(({ pid }) => pid);
}

/** Starts the emulated edge at `timeScale` (see scaledVars; 1: real time), each location with `locationVars(index)` over the settings; `dispose()` stops it and removes its state. */
export async function startCluster(options) {
  const [cluster] = await startClusters(1, options);
  return cluster;
}

/**
 * `count` emulated edges alike (startCluster's), from one build: each its own workerd process
 * with its own state (D1, R2, caches, objects), so that a bench can load two at the same moment
 * and read each one's CPU time apart (bench/analytics' cost part). Started one after the other:
 * each claims the workerd processes that appeared with it.
 */
export async function startClusters(count, { locations, rttMs, timeScale = 1, locationVars }) {
  const config = unstable_readConfig({ config: join(repo, 'wrangler.toml') });
  // State in memory where the system has it: D1, R2, the caches and every object's storage
  // commit on each change, and the bench measures the design, not the disk's syncs.
  const workDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sitehost-bench-edge-'));
  const clusters = [];
  try {
    const built = spawnSync(process.execPath, [join(repo, 'scripts/build-worker.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error("The Worker's build failed");
    const build = {
      config,
      workDir,
      scriptPath: await bundle(workDir, 'bench/edge/location.ts', 'location'),
      zoneApiPath: await bundle(workDir, 'bench/edge/zone-api.ts', 'zone-api'),
    };
    // The migrations as `npm start` applies them (wrangler d1 migrations apply --local), before any Worker runs; each edge starts from a copy.
    const migrated = migrateLocalDatabase(join(workDir, 'migrated'));
    if (!migrated.ok) throw new Error(`Applying the D1 migrations failed:\n${migrated.output}`);
    for (let copy = 0; copy < count; copy++) {
      const stateDir = join(workDir, `state-${copy}`);
      cpSync(join(workDir, 'migrated'), stateDir, { recursive: true });
      clusters.push(await startEdge(build, stateDir, { locations, rttMs, timeScale, locationVars }));
    }
  } catch (error) {
    for (const cluster of clusters) await cluster.dispose();
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  // The build's folder goes with the last edge stopped.
  let running = count;
  for (const cluster of clusters) {
    const stop = cluster.dispose;
    cluster.dispose = async () => {
      await stop();
      if (--running === 0) rmSync(workDir, { recursive: true, force: true });
    };
  }
  return clusters;
}

/** The workerd processes some edge of this process has claimed. */
const claimedRuntimes = new Set();

/** One edge of startClusters, its state in `stateDir`. */
async function startEdge({ config, workDir, scriptPath, zoneApiPath }, stateDir, { locations, rttMs, timeScale, locationVars }) {
  // Miniflare's documented (v4) option form, which it converts to its own.
  const optionsAt = (timeScale) => {
    const options = { rttMs, config, workDir, scriptPath, timeScale, locationVars };
    return convertV4MiniflareOptions({
      workers: [
        worker('objects', options),
        ...Array.from({ length: locations }, (_, index) => worker(index, options)),
        {
          name: 'zone-api',
          modules: true,
          scriptPath: zoneApiPath,
          modulesRoot: workDir,
          compatibilityDate: config.compatibility_date,
          bindings: { BENCH_RTT_MS: String(rttMs), BENCH_LOCATIONS: String(locations), BENCH_TIME_SCALE: String(timeScale) },
        },
      ],
      // Wrangler's layout under --persist-to: the D1 database migrateLocalDatabase made is this one.
      resourcePersistencePath: join(stateDir, 'v3'),
    });
  };
  const mf = new Miniflare(optionsAt(timeScale));
  try {
    await mf.ready;
  } catch (error) {
    await mf.dispose();
    throw error;
  }
  const workers = [];
  let zoneApi;
  let objects;
  /** The workerd processes Miniflare started. */
  let runtimes = [];
  const connect = async () => {
    for (const pid of runtimes) claimedRuntimes.delete(pid);
    // This edge's: the ones no other edge of this process claimed (a restart may start new ones).
    runtimes = childProcesses('workerd').filter((pid) => !claimedRuntimes.has(pid));
    for (const pid of runtimes) claimedRuntimes.add(pid);
    // A new pool of connections: those to the Workers before a restart are gone.
    const agent = new Agent({ keepAlive: true, maxSockets: 512 });
    const direct = async (name) => directFetcher(await mf.unsafeGetDirectURL(name), agent);
    workers.splice(0, locations, ...(await Promise.all(Array.from({ length: locations }, (_, index) => direct(`loc${index}`)))));
    zoneApi = await mf.getWorker('zone-api');
    objects = await direct('objects');
  };
  await connect();
  const token = await new SignJWT({ scope: 'deploy global_read' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('github|bench')
    .setIssuer(config.vars.TOKEN_ISSUER)
    .setAudience(config.vars.AUTH_AUDIENCE)
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));

  /** An API call at `location` (the deploying client's nearest), with the bench's token. */
  const api = (location, path, init = {}) =>
    workers[location].fetch(`http://localhost${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

  return {
    locations,
    rttMs,
    workers,
    timeScale,
    api,
    /** Restarts the Workers at another time scale; what is stored (sites, caches, the account's budget) stays. */
    async rescale(scale) {
      await mf.setOptions(optionsAt(scale));
      await connect();
      this.timeScale = scale;
    },
    /** Deploys one index.html; throws unless 200. */
    async deploy(location, domain, html) {
      const form = new FormData();
      form.append('directory', new Blob([html], { type: 'text/html' }), 'index.html');
      // Encoded here: Miniflare's fetch does not take Node's FormData as a body.
      const encoded = new Response(form);
      const response = await api(location, `/v2/sites/${domain}`, {
        method: 'PUT',
        headers: { 'content-type': encoded.headers.get('content-type') },
        body: await encoded.arrayBuffer(),
      });
      if (response.status !== 200) throw new Error(`Deploying ${domain}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    },
    /** A configuration edit every visitor sees: the header `x-version`. Answers the response, its body read. */
    async setVersionHeader(location, domain, version) {
      const response = await api(location, `/v2/sites/${domain}/configuration`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ headers: [{ fields: { 'x-version': String(version) } }] }),
      });
      await response.arrayBuffer();
      return response;
    },
    /** How long the Worker hosting the Durable Objects takes to answer a request that needs nothing (its isolate's queue, i.e. the machine). */
    async objectsDelayMs() {
      const started = performance.now();
      await (await objects.fetch('http://bench.stats/')).arrayBuffer();
      return performance.now() - started;
    },
    /**
     * CPU seconds the local workerd (every location, object and queue) has run so far, or
     * undefined where /proc does not say (not Linux): unlike elapsed time, the time other
     * processes on the machine take does not enter it.
     */
    servingCpuSeconds() {
      return runtimes.length === 0 ? undefined : cpuSecondsOf(runtimes);
    },
    /** Every request the zone API stand-in saw: `{ at, status, urls }`, oldest first. */
    async zoneRequests() {
      return (await zoneApi.fetch('http://bench.zone-api/stats')).json();
    },
    async dispose() {
      await mf.dispose();
      for (const pid of runtimes) claimedRuntimes.delete(pid);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Deploys `domains` a few at a time, each with its own page. */
export async function deployAll(cluster, domains) {
  for (let start = 0; start < domains.length; start += 20) {
    await Promise.all(domains.slice(start, start + 20).map((domain) => cluster.deploy(0, domain, `<p>${domain}</p>`)));
  }
}
