// `npm run bench:serve`: how fast the service serves a deployed site, against what the same
// local runtime and nginx do with the same files, and what protecting a site costs a member.
//
// Needs wrk and nginx from Debian (installs nothing itself):
//   apt-get update && apt-get install -y wrk nginx-light
//
// Starts, all at once, each on a free loopback port and stopped at the end (a server counts as
// started only once a process of its own listens on its port: bench/serve/servers.mjs):
//   service        this Worker (scripts/start.mjs, wrangler dev, state in a temporary dir,
//                  copied from a migrated one kept per set of D1 migrations in the system's
//                  temporary folder) serving a site deployed to it, requested with its Host header;
//   static-assets  the same files served by Workers Static Assets (bench/serve/static-assets);
//   floor          a Worker answering each file's bytes from memory with the same Content-Type,
//                  no lookup, no header of its own (bench/serve/floor): the runtime's cost of
//                  sending that response, which no Worker serving it can undercut;
//   hello-world    the same Worker's `/hello`, 11 bytes: the runtime's cost of any answer;
//   nginx          nginx serving the same folder (one worker process, like one workerd).
// All Workers run under `wrangler dev`, whose proxy also passes every HTML response through
// HTMLRewriter (for live reload): the floor's HTML pays it as the service's does.
//
// 1. Servers: for a 2 KB HTML page, a 100 KB script and a 1 MB image it runs wrk (BENCH_THREADS
//    threads, default 2; BENCH_CONNECTIONS connections, default 32) after a 1 s warm-up, in
//    BENCH_ROUNDS rounds (default 5) of BENCH_SECONDS seconds (default 2) taking turns between
//    the servers (every other round in the reverse order), and prints the median round's
//    requests/s and p99 latency for each server, and the service's ratios: each the median of
//    its rounds' ratios, the two servers measured seconds apart in the same round, with the
//    lowest and highest round. Targets: at least Static Assets' requests/s on every file, at
//    least 0.8 of the floor's. The ratio to the hello-world is printed too: for the 1 MB image
//    no Worker comes near it, the floor itself included, as the floor's own ratio shows. And the
//    share of a core the Worker's workerd, wrangler's proxy and wrk used during the service's
//    rounds (/proc), which says which of them set the pace.
// 2. Protection (./protected-pairs.mjs): the same files on a members-only site of the same
//    service, requested with a member's grant cookie, against the open site, straight to the
//    Worker's own workerd (the port of the service's non-proxy workerd that answers the bench's
//    token), not through wrangler dev's proxy, which costs about as much CPU per request as the
//    Worker and shares the two cores with it and wrk. BENCH_CYCLES cycles (default 80, twice that
//    for the 2 KB page, whose ratio lies nearest the margin and whose short blocks move most; after
//    BENCH_WARMUP_CYCLES, default 2) of three blocks of BENCH_BLOCK_MS (default 250 ms; wrk
//    stopped by SIGINT) with BENCH_BLOCK_THREADS wrk threads (default 1) and
//    BENCH_BLOCK_CONNECTIONS connections (default 4, which keep the Worker busy and leave few
//    requests in flight when a block ends): the open site, the protected one and an open copy
//    (a third site of the same files, so that no site follows itself more often), the six
//    orders in turn. Per block, requests per second and requests per CPU second of the Worker's
//    process (/proc: the time other processes take is left out); per cycle, protected ÷ the
//    geometric mean of the two open blocks, and the A/A, copy ÷ open. Printed: the centre of
//    each (Hodges–Lehmann) with its 95 % interval (bench/statistics.mjs `ratioCentre`), the A/A's
//    distance from 1 (what it resolves), the Worker's and wrk's share of a core during a block,
//    its CPU per request on each site, and beside them the protection check's own CPU per
//    request measured apart (./protection-cost.mjs), with the ratio it alone would make. Target: protected ÷ open in
//    requests per Worker CPU second at least 0.90, met only when its 95 % interval lies above
//    0.90 and the A/A resolves ±10 %, the target's margin (the line says which failed); letting
//    a member in is a lookup of a grant the isolate verified (docs/serving.md, "Protected sites").
//
// Quick mode (bench/mode.mjs): one round of 0.2 s per file and server, no warm-up; 2 cycles of
// 150 ms blocks; the protection check timed on 3 rounds of 300 requests. It prints every target.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, openAsBlob, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { migrateLocalDatabase, migrationsDigest } from '../../scripts/local-migrations.mjs';
import { freePort, inspectorArgs, isProxy, workerdPids } from '../deploy/processes.mjs';
import { announce, quick, setting, target } from '../mode.mjs';
import { cpuDuring, listeningPorts } from '../proc.mjs';
import { median } from '../statistics.mjs';
import { measureBlocks, reportProtection } from './protected-pairs.mjs';
import { protectionCheckCost } from './protection-cost.mjs';
import { startProcess } from './servers.mjs';
import { check, wrk } from './wrk.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const here = new URL('.', import.meta.url).pathname;
const wrangler = join(repo, 'node_modules/wrangler/bin/wrangler.js');
const seconds = setting('BENCH_SECONDS', 2, 0.2);
const rounds = setting('BENCH_ROUNDS', 5, 1);
const threads = setting('BENCH_THREADS', 2);
const connections = setting('BENCH_CONNECTIONS', 32);
const blocks = {
  cycles: setting('BENCH_CYCLES', 80, 2),
  warmupCycles: setting('BENCH_WARMUP_CYCLES', 2, 0),
  ms: setting('BENCH_BLOCK_MS', 250, 150),
  threads: setting('BENCH_BLOCK_THREADS', 1),
  connections: setting('BENCH_BLOCK_CONNECTIONS', 4),
};
const domain = 'bench.example';
/** The same files on a site only members open, requested with a share link's grant cookie. */
const protectedDomain = 'bench-protected.example';
/** The same files on another open site: the protected page's A/A (./protected-pairs.mjs). */
const copyDomain = 'bench-copy.example';

/**
 * `type`: the Content-Type the service answers for the file, which the floor answers too.
 * `protectionCycles`: how many times BENCH_CYCLES the protected ÷ open measure runs for it (not in
 * quick mode). Twice for the small page: there a protected request's fixed cost is the largest
 * share of the Worker's ~1 ms, so its ratio lies nearest the margin, and its 250 ms blocks (some
 * 250 requests) move most with what else the Worker's process does (a garbage collection, the
 * analytics' flush): at 80 cycles its A/A resolved ±5.6 % in one quiet run and ±11.2 % in the next.
 */
const files = [
  { label: '2 KB HTML page', name: 'index.html', path: '/', type: 'text/html; charset=utf-8', bytes: htmlPage(2 * 1024), protectionCycles: 2 },
  { label: '100 KB script', name: 'app.js', path: '/app.js', type: 'text/javascript; charset=utf-8', bytes: script(100 * 1024) },
  { label: '1 MB image', name: 'image.jpg', path: '/image.jpg', type: 'image/jpeg', bytes: randomBytes(1024 * 1024) },
];

function htmlPage(size) {
  const head = '<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>Bench</title>\n<body>\n';
  const tail = '</body>\n</html>\n';
  const paragraph = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n';
  return Buffer.from(head + paragraph.repeat(Math.floor((size - head.length - tail.length) / paragraph.length)) + tail);
}

function script(size) {
  const line = 'export const value = () => Math.random().toString(36).slice(2);\n';
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
}

for (const tool of ['wrk', 'nginx']) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    console.error(`${tool} is missing: apt-get install -y wrk nginx-light`);
    process.exit(1);
  }
}

const workDir = mkdtempSync(join(tmpdir(), 'sitehost-bench-serve-'));
const siteDir = join(workDir, 'site');
mkdirSync(siteDir);
for (const file of files) writeFileSync(join(siteDir, file.name), file.bytes);
// nginx's workers run as another user: they must be able to read the files.
for (const dir of [workDir, siteDir]) chmodSync(dir, 0o755);

/** Started processes, stopped at the end. */
const servers = [];
const quiet = ['--ip', '127.0.0.1', '--log-level', 'warn', '--show-interactive-dev-session=false'];

async function wranglerDev(config, extra = []) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const args = [wrangler, 'dev', '--config', config, '--port', String(port), ...quiet, ...(await inspectorArgs()), ...extra];
  servers.push(await startProcess(process.execPath, args, { cwd: repo, readyUrl: origin }));
  return origin;
}

/**
 * Local state with the D1 migrations applied, copied into `stateDir` from a template made once
 * per set of migrations in the system's temporary folder: applying them takes wrangler about
 * 10 s, two thirds of a quick run's start. scripts/start.mjs then finds them applied.
 */
function migratedState(stateDir) {
  const template = join(tmpdir(), `sitehost-bench-serve-state-${migrationsDigest().slice(0, 16)}`);
  if (!existsSync(template)) {
    const making = mkdtempSync(`${template}-`);
    const migrated = migrateLocalDatabase(making);
    if (!migrated.ok) throw new Error(`applying the D1 migrations failed:\n${migrated.output}`);
    try {
      renameSync(making, template);
    } catch {
      // Another bench made it meanwhile.
      rmSync(making, { recursive: true, force: true });
    }
  }
  cpSync(template, stateDir, { recursive: true });
}

/**
 * This Worker with the open site and its members-only copy deployed, and a member's grant cookie
 * for the copy. `worker` is the Worker's own workerd behind wrangler dev's proxy: its pids, and
 * of the ports it listens on, the one that answers the bench's token as the service does (no
 * other server knows this run's secret).
 */
async function startService() {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const secret = randomBytes(32).toString('base64url');
  const env = { PORT: String(port), SITEHOST_PERSIST_DIR: join(workDir, 'state'), AUTH_SECRET: secret };
  migratedState(env.SITEHOST_PERSIST_DIR);
  // The token needs only the secret: it is made while the service starts.
  const [server, { stdout }] = await Promise.all([
    startProcess(process.execPath, ['scripts/start.mjs', ...quiet, ...(await inspectorArgs())], { cwd: repo, env, readyUrl: origin }).then((started) => (servers.push(started), started)),
    promisify(execFile)(process.execPath, ['scripts/token.mjs', '--user', 'github|bench', '--scope', 'deploy'], { cwd: repo, env: { ...process.env, AUTH_SECRET: secret } }),
  ]);
  const token = stdout.trim();
  const call = async (method, path, body, at = origin) => {
    const response = await fetch(`${at}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }) }, body: body instanceof FormData ? body : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${await response.text()}`);
    return response.json();
  };
  await Promise.all(
    [domain, copyDomain, protectedDomain].map(async (site) => {
      const form = new FormData();
      for (const file of files) form.append('directory', await openAsBlob(join(siteDir, file.name)), file.name);
      await call('PUT', `/v2/sites/${site}`, form);
    }),
  );
  await call('PUT', `/v2/sites/${protectedDomain}/protection`, { previews: 'members', site: 'members' });
  // The link's grant is what opening it sets as the host's cookie.
  const link = await call('POST', `/v2/sites/${protectedDomain}/share`, { expiresIn: 3600 });
  const grant = new URL(link.url).searchParams.get('grant');
  const proxyPids = workerdPids(server.pid).filter((pid) => isProxy(pid, port));
  const pids = workerdPids(server.pid).filter((pid) => !isProxy(pid, port));
  const answersAsService = (at) => call('GET', '/v2/whoami', undefined, at).then(() => true, () => false);
  let worker;
  for (const workerPort of listeningPorts(pids)) {
    if (await answersAsService(`http://127.0.0.1:${workerPort}`)) worker = { origin: `http://127.0.0.1:${workerPort}`, pids };
  }
  if (!worker) throw new Error(`none of the ports the Worker's workerd (${pids.join(', ')}) listens on answers as the service`);
  return { origin, worker, proxyPids, cookie: `sitehost_grant=${grant}` };
}

/** The floor Worker, from a copy of bench/serve/floor beside a files.js holding the files' bytes. */
function startFloor() {
  const dir = join(workDir, 'floor');
  cpSync(join(here, 'floor'), dir, { recursive: true });
  const bodies = Object.fromEntries(files.map((file) => [file.path, { type: file.type, base64: file.bytes.toString('base64') }]));
  writeFileSync(join(dir, 'files.js'), `export default ${JSON.stringify(bodies)};\n`);
  return wranglerDev(join(dir, 'wrangler.toml'));
}

async function startNginx() {
  const port = await freePort();
  const config = join(workDir, 'nginx.conf');
  writeFileSync(
    config,
    `worker_processes 1;
pid ${workDir}/nginx.pid;
error_log ${workDir}/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  client_body_temp_path ${workDir}/nginx-body;
  proxy_temp_path ${workDir}/nginx-proxy;
  fastcgi_temp_path ${workDir}/nginx-fastcgi;
  uwsgi_temp_path ${workDir}/nginx-uwsgi;
  scgi_temp_path ${workDir}/nginx-scgi;
  server {
    listen 127.0.0.1:${port};
    root ${siteDir};
  }
}
`,
  );
  const origin = `http://127.0.0.1:${port}`;
  servers.push(await startProcess('nginx', ['-c', config, '-p', workDir, '-g', 'daemon off;'], { readyUrl: origin }));
  return origin;
}

const format = (value, digits) => value.toFixed(digits).padStart(10);
/** The run with the median requests/s. */
const medianRun = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

announce('bench:serve');
/** Each of `starts` (promises of started servers' origins) once all have settled: a failed start throws only once the others are up, so that every started server is stopped. */
async function started(starts) {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find(({ status }) => status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map(({ value }) => value);
}

try {
  console.log('starting servers…');
  // All at once: starting them takes most of a quick run.
  const [floor, service, staticAssets, nginx] = await started([startFloor(), startService(), wranglerDev(join(here, 'static-assets/wrangler.toml'), ['--assets', siteDir]), startNginx()]);
  const contenders = {
    service: { origin: service.origin, host: domain },
    'static-assets': { origin: staticAssets },
    floor: { origin: floor },
    'hello-world': { origin: floor, path: '/hello' },
    nginx: { origin: nginx },
  };
  const sides = { open: { host: domain }, protected: { host: protectedDomain, cookie: service.cookie }, copy: { host: copyDomain } };
  const gate = await protectionCheckCost(quick ? { rounds: 3, perRound: 300 } : { rounds: 15, perRound: 2000 });
  console.log(`wrk: ${threads} threads, ${connections} connections, ${rounds} rounds of ${seconds} s per case; protection straight to the Worker's workerd (${service.worker.origin})\n`);
  const load = (ms) => ({ ms, threads, connections });
  for (const file of files) {
    const targets = Object.entries(contenders).map(([name, { origin, host, path }]) => ({ name, host, url: `${origin}${path ?? file.path}` }));
    for (const { name, url, host } of targets) {
      if (name !== 'hello-world') await check(url, host, file);
      if (!quick) await wrk(url, { ...load(1000), host });
    }
    for (const side of Object.values(sides)) await check(`${service.worker.origin}${file.path}`, side.host, file, side.cookie);
    // Rounds take turns between the servers, so that load from elsewhere on the machine
    // weighs on all of them alike; every other round runs them in the reverse order, so that
    // none always follows the same one. The median round counts.
    // The service's rounds also read what the Worker, wrangler's proxy and wrk used of a core: which of them set the pace.
    const runs = Object.fromEntries(targets.map(({ name }) => [name, []]));
    const shares = [];
    const run = async (name, url, host) => {
      if (name !== 'service') return wrk(url, { ...load(seconds * 1000), host });
      const { result, seconds: wall, cpu } = await cpuDuring({ worker: service.worker.pids, proxy: service.proxyPids }, () => wrk(url, { ...load(seconds * 1000), host }));
      shares.push({ worker: cpu.worker / wall, proxy: cpu.proxy / wall, wrk: cpu.children / wall });
      return result;
    };
    for (let round = 0; round < rounds; round++) {
      for (const { name, url, host } of round % 2 === 0 ? targets : [...targets].reverse()) runs[name].push(await run(name, url, host));
    }
    const protection = await measureBlocks(service.worker, file.path, sides, { ...blocks, cycles: blocks.cycles * (quick ? 1 : (file.protectionCycles ?? 1)) });
    const results = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, medianRun(list)]));
    console.log(`${file.label} (${file.path}, ${file.bytes.length} bytes)`);
    console.log(`  ${'server'.padEnd(14)}${'req/s'.padStart(10)}${'p99 ms'.padStart(10)}`);
    for (const [name, { rps, p99 }] of Object.entries(results)) {
      console.log(`  ${name.padEnd(14)}${format(rps, 0)}${format(p99, 2)}`);
    }
    // Each round's ratio compares two servers measured seconds apart; the median round's counts.
    const roundRatios = (server, to) => runs[server].map((run, round) => run.rps / runs[to][round].rps).sort((a, b) => a - b);
    const ratio = (server, to) => roundRatios(server, to)[Math.floor(rounds / 2)];
    const figure = (server, to) => {
      const all = roundRatios(server, to);
      return `${ratio(server, to).toFixed(2)}${rounds > 1 ? ` (rounds ${all[0].toFixed(2)} to ${all.at(-1).toFixed(2)})` : ''}`;
    };
    target(`  ${file.label}: service / static-assets ${figure('service', 'static-assets')}`, '>= 1.00', ratio('service', 'static-assets') >= 1);
    target(`  ${file.label}: service / floor ${figure('service', 'floor')}`, '>= 0.80', ratio('service', 'floor') >= 0.8);
    console.log(
      `  service / hello-world: ${ratio('service', 'hello-world').toFixed(2)}` +
        `   floor / hello-world: ${ratio('floor', 'hello-world').toFixed(2)} (what sending these bytes costs the runtime)`,
    );
    const share = (role) => `${(100 * median(shares.map((entry) => entry[role]))).toFixed(0)} %`;
    console.log(`  during the service's rounds, share of a core (medians): the Worker ${share('worker')}, wrangler's proxy ${share('proxy')}, wrk ${share('wrk')} (${threads} threads)`);
    reportProtection(file.label, protection, blocks, gate);
    console.log();
  }
} finally {
  for (const server of servers.reverse()) await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
