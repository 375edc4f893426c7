// `npm run bench:deploy`: deploy throughput and memory against the real local runtime.
//
// 1. A 100 MiB deploy (400 files of 256 KiB) to a freshly started service (scripts/start.mjs:
//    wrangler dev on a free port, state in a temporary dir): workerd's peak memory growth
//    (target: < 100 MB).
// 2. A realistic 2,000-file, 40 MiB site deployed with a streamed multipart body (files are
//    read from disk as the body is sent): wall time, files/s, MB/s, workerd's peak memory.
// 3. 20,000 small files: wall time against the service, and the platform calls that the
//    workers test test/deploy/platform-calls.test.ts counts for such a deploy (target: ≤ 1,000).
// 4. The same bodies sent to bench/deploy/floor, a Worker that only reads and discards them:
//    the transfer floor, the ratio deploy/floor (target: ≤ 2.0), and the floor's own memory
//    growth for the 100 MiB body. The site's body also goes to the floor's `/store`, which writes
//    its bytes to R2 as a deploy writes its pack: what moving and storing the bytes costs, which
//    the deploy cannot go below (locally, R2 is simulated on the Worker's own thread). The
//    Worker process's CPU time in each is read from /proc: the storing floor's less the floor's
//    is what the local R2 simulator spends storing the bytes.
// 5. The 2,000-file site deployed by the CLI (`sitehost deploy`, incremental, its hash cache in
//    the bench's own folder), then redeployed with 1 file changed: bytes sent (counted by a relay in
//    front of the service) ÷ the full deploy's (target ≤ 1 %), and the redeploy's wall time ÷ the
//    CLI's own floor in the same run: `sitehost whoami` (process start, one request) plus two more
//    round trips to the service, what an incremental deploy cannot do without (target ≤ 2×); then a
//    rollback to the full deploy: time from the activate call until the old content is served
//    (target < 1 s).
// 6. A 2,000-file folder of ~1 KB files, as a CLI's first deploy to a new domain (from a fresh
//    hash cache, process start to exit) and as one multipart PUT (request to answer), alternately:
//    the ratio CLI ÷ multipart (target ≤ 1.5), and the 42 MB site's (the CLI's full deploy above ÷
//    its multipart deploy). The CLI runs from the checkout (Node 24, TypeScript) as in 5, and, where
//    /usr/bin/node is Node 20, packed and installed (`npm run pack:cli`) on that Node too.
// BENCH_RUNS (default 5) sets how often the 40 MiB site is sent to each, alternately (both
// servers run at once); the machine is shared, so the report gives the median and the best run.
// Quick mode (bench/mode.mjs): every size a twentieth (a 5 MiB deploy, a 100-file 2 MiB site,
// 1,000 small files, a 100-file folder), one run; the packed CLI and the platform calls (which
// `npm test` counts) are left out.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cpuMsOf, freePort, isProxy, measureMemory, startServer, workerdPids } from './processes.mjs';
import { generateRealisticSite, generateSmallFileSite, generateUniformSite, smallPages } from './site.mjs';
import { startCountingRelay } from '../../test/node/cli/counting-relay.ts';
import { announce, quick, setting } from '../mode.mjs';
import { localWorkerdV8Flags } from '../../scripts/workerd-flags.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const wrangler = join(repo, 'node_modules/wrangler/bin/wrangler.js');
const runs = setting('BENCH_RUNS', 5, 1);
const MB = 1e6;
const MiB = 1024 * 1024;
/** The sizes: of the big deploy (files of 256 KiB), of the realistic site, of the small files' deploys. */
const bigFiles = quick ? 20 : 400;
const siteFiles = quick ? 100 : 2000;
const siteMiB = quick ? 2 : 40;
const smallPageCount = quick ? 1000 : 20_000;
const smallSiteFiles = quick ? 100 : 2000;
const count = (value) => value.toLocaleString('en');

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const requests = (count) => `${count} ${count === 1 ? 'request' : 'requests'}`;

async function formOf(root, files) {
  const form = new FormData();
  // File-backed blobs: fetch streams each file from disk as the body is sent.
  for (const file of files) form.append('directory', await openAsBlob(join(root, file.path)), file.path);
  return form;
}

/** Sends `form` with PUT and returns the milliseconds until the whole response arrived, and its JSON. */
async function upload(url, form, token) {
  const started = performance.now();
  const response = await fetch(url, { method: 'PUT', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`PUT ${url}: ${response.status} ${text}`);
  return { ms, body: JSON.parse(text) };
}

/** The CLI from the checkout: TypeScript on this Node (24), its compile cache filled by a first run. */
const repoCli = [process.execPath, join(repo, 'bin/sitehost.mjs')];

/**
 * Runs `sitehost deploy <dir> --domain <domain> --json` (`cli`: the command and its first
 * arguments) against `origin` with its hash cache in `cacheDir`; its wall time, process start to
 * exit, and deploy result.
 */
function cliDeployTo(origin, token, dir, domain, { cli = repoCli, cacheDir = join(workDir, 'cli-cache'), env = process.env } = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      cli[0],
      [...cli.slice(1), 'deploy', dir, '--domain', domain, '--json'],
      { env: { ...env, SITEHOST_ORIGIN: origin, SITEHOST_TOKEN: token, XDG_CACHE_HOME: cacheDir } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`sitehost deploy ${domain}: ${error.message}\n${stderr}`));
        resolve({ ms: performance.now() - started, result: JSON.parse(stdout) });
      },
    );
  });
}

/** The wall time of `sitehost whoami --json` against `origin`, process start to exit: the CLI's start and one request. */
function cliWhoami(origin, token) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(repoCli[0], [...repoCli.slice(1), 'whoami', '--json'], { env: { ...process.env, SITEHOST_ORIGIN: origin, SITEHOST_TOKEN: token } }, (error, _stdout, stderr) => {
      if (error) return reject(new Error(`sitehost whoami: ${error.message}\n${stderr}`));
      resolve(performance.now() - started);
    });
  });
}

/** Milliseconds of one request to `origin` answered by the service (`GET /v2/whoami`): a round trip. */
async function roundTrip(origin, token) {
  const started = performance.now();
  const response = await fetch(`${origin}/v2/whoami`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET /v2/whoami: ${response.status}`);
  return performance.now() - started;
}

/**
 * The CLI's floor for a deploy that sends almost nothing: its process start and three round trips
 * (`sitehost whoami`, then two requests), as many as an incremental deploy makes when it sends
 * the manifest, the blobs and the finalize apart.
 */
async function cliFloor(origin, token) {
  const whoamiMs = await cliWhoami(origin, token);
  const requestsMs = (await roundTrip(origin, token)) + (await roundTrip(origin, token));
  return { ms: whoamiMs + requestsMs, whoamiMs, requestsMs };
}

/** `cliDeployTo` through `relay`, with the bytes it sent and the requests it made. */
async function cliDeploy(relay, token, dir, domain) {
  const before = relay.bytesFromClients();
  const requestsBefore = relay.requestLines().length;
  const run = await cliDeployTo(relay.origin, token, dir, domain);
  return { ...run, bytes: relay.bytesFromClients() - before, requests: relay.requestLines().length - requestsBefore };
}

/**
 * The CLI packed by `npm run pack:cli` and installed from its tarball into a prefix of the bench's
 * own, to run on the machine's Node 20 (/usr/bin/node), as a distribution's user runs it; undefined
 * when that Node is not 20 or the install fails (the figure is then left out, saying why).
 */
function installPackedCli() {
  const node20 = '/usr/bin/node';
  if (quick) return { why: 'quick mode' };
  try {
    if (!/^v20\./.test(execFileSync(node20, ['--version'], { encoding: 'utf8' }))) return { why: `${node20} is not Node 20` };
    const tarball = execFileSync(process.execPath, ['scripts/pack-cli.mjs'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').at(-1);
    const prefix = join(workDir, 'cli-prefix');
    const path = `${dirname(node20)}:${process.env.PATH}`;
    execFileSync('npm', ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline'], { env: { ...process.env, PATH: path }, stdio: 'pipe' });
    return { cli: [join(prefix, 'bin', 'sitehost')], env: { ...process.env, PATH: path } };
  } catch (error) {
    return { why: `the packed CLI could not be installed: ${error.message.split('\n')[0]}` };
  }
}

/** GETs `path` of a hosted site as a browser does at `<domain>.localhost`; resolves to the body. */
function getFromSite(port, domain, path) {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, headers: { host: `${domain}.localhost:${port}` } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks)));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Activates deployment `id` and returns the milliseconds until the site serves `expected` at `path`. */
async function rollbackTime(service, token, domain, id, path, expected) {
  const started = performance.now();
  const response = await fetch(`${service.url}/v2/sites/${domain}/deployments/${id}/activate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`activate ${id}: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
  while (!(await getFromSite(service.port, domain, path)).equals(expected)) {
    if (performance.now() - started > 10_000) throw new Error(`the rollback of ${domain} was not served within 10 s`);
  }
  return performance.now() - started;
}

/** The platform calls of a 20,000-file deploy, as the workers test test/deploy/platform-calls.test.ts counts them. */
function countPlatformCalls() {
  console.log('counting platform calls (test/deploy/platform-calls.test.ts)…');
  const counted = spawnSync(
    process.execPath,
    [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'workers', 'test/deploy/platform-calls.test.ts'],
    { cwd: repo, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
  );
  const callsMatch = /platform calls for 20,000 files: (\d+)/.exec(counted.stdout + counted.stderr);
  if (!callsMatch) console.warn(`could not read the platform call count:\n${counted.stdout}${counted.stderr}`);
  return callsMatch ? Number(callsMatch[1]) : undefined;
}

async function bodyBytes(form) {
  return (await new Response(form).blob()).size;
}

/**
 * Measures the memory of the server's workerd processes while `work` runs, naming each: wrangler
 * dev runs the Worker in one and its proxy in another. The processes are looked up each time:
 * wrangler restarts workerd when a source file changes.
 */
async function measure(server, work) {
  const measured = await measureMemory(workerdPids(server.pid), work);
  for (const entry of measured.processes) entry.role = isProxy(entry.pid, server.port) ? "wrangler's proxy" : 'Worker';
  return measured;
}

/** Runs `work` and adds to its result `cpuMs`: the CPU time the server's Worker process (not its proxy) used meanwhile. */
async function withWorkerCpu(server, work) {
  const workerPids = workerdPids(server.pid).filter((pid) => !isProxy(pid, server.port));
  const cpuMs = () => workerPids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  const before = cpuMs();
  const result = await work();
  return { ...result, cpuMs: cpuMs() - before };
}

/** "Worker 140 MB → 330 MB (+190 MB), wrangler's proxy …": each workerd process's memory. */
function describeMemory({ processes }) {
  return processes.map(({ role, before, peak }) => `${role} ${mb(before)} → ${mb(peak)} (+${mb(peak - before)})`).join('; ');
}

const growthOf = ({ processes }) => processes.reduce((sum, { before, peak }) => sum + peak - before, 0);
const peakOf = ({ processes }) => processes.reduce((sum, { peak }) => sum + peak, 0);

/** Starts `argsFor(port)` on a free port (also given as PORT, which scripts/start.mjs reads). */
async function startDev(argsFor, env = {}) {
  const port = await freePort();
  const server = await startServer(argsFor(port), { cwd: repo, env: { ...env, PORT: String(port) } });
  if (workerdPids(server.pid).length === 0) throw new Error('no workerd process found under wrangler dev');
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

announce('bench:deploy');
const workDir = await mkdtemp(join(tmpdir(), 'sitehost-bench-'));
/** The wrangler dev servers running, stopped at the end whatever happens. */
const servers = [];
try {
  console.log('generating sites…');
  const siteRoot = join(workDir, 'files');
  const site = await generateRealisticSite(siteRoot, siteMiB * MiB, siteFiles);
  const big = await generateUniformSite(siteRoot, bigFiles, 256 * 1024);
  const bigLabel = `${(bigFiles * 256) / 1024} MiB`;
  const siteBytes = site.reduce((sum, file) => sum + file.size, 0);
  const siteForm = await formOf(siteRoot, site);
  const siteBody = await bodyBytes(siteForm);
  const bigForm = await formOf(siteRoot, big);
  const smallSite = await generateSmallFileSite(siteRoot, smallSiteFiles, 1024);
  const smallForm1k = await formOf(siteRoot, smallSite);
  const smallForm = new FormData();
  for (const page of smallPages(smallPageCount)) smallForm.append('directory', page.blob, page.path);
  const warmUp = new FormData();
  warmUp.append('directory', new Blob(['<p>warm</p>']), 'index.html');

  // --- the service, and the transfer floor beside it ---
  // Both run at once and the 40 MiB site goes to one then the other, run after run, so that
  // whatever else loads the machine weighs on the deploy and its floor alike. The floor's local
  // workerd gets the V8 flags scripts/start.mjs gives the service's, so both are measured alike.
  const secret = randomBytes(32).toString('base64url');
  const service = await startDev(() => ['scripts/start.mjs'], { SITEHOST_PERSIST_DIR: join(workDir, 'state'), AUTH_SECRET: secret });
  servers.push(service);
  const floor = await startDev((port) => [
    wrangler, 'dev', '-c', 'bench/deploy/floor/wrangler.toml', '--port', String(port), '--ip', '127.0.0.1',
    '--persist-to', join(workDir, 'floor-state'), '--show-interactive-dev-session=false',
  ], { MINIFLARE_WORKERD_V8_FLAGS: process.env.MINIFLARE_WORKERD_V8_FLAGS ?? localWorkerdV8Flags });
  servers.push(floor);
  const token = execFileSync(process.execPath, ['scripts/token.mjs', '--user', 'github|bench', '--scope', 'deploy'], {
    cwd: repo,
    env: { ...process.env, AUTH_SECRET: secret },
  })
    .toString()
    .trim();
  const deployTo = (domain, form) => upload(`${service.url}/v2/sites/${domain}`, form, token);
  const floorSend = (form) => upload(`${floor.url}/`, form);
  const storeFloorSend = (form) => upload(`${floor.url}/store`, form);
  await deployTo('warm.example', warmUp);
  await floorSend(warmUp);
  await storeFloorSend(warmUp);

  console.log(`deploying ${big.length} files of 256 KiB (${bigLabel}) to the fresh service, then to the floor…`);
  const bigDeploy = await measure(service, () => deployTo('big.example', bigForm));
  const floorBig = await measure(floor, () => floorSend(bigForm));

  console.log(`deploying ${site.length} files, ${mb(siteBytes)} (multipart body ${mb(siteBody)}), and sending the same body to the floor…`);
  let siteMemory;
  const deployTimes = [];
  const floorTimes = [];
  const storeFloorTimes = [];
  /** The Worker process's CPU time in each run's deploy, floor and storing floor. */
  const workerCpu = [];
  for (let run = 0; run < runs; run++) {
    const measured = await measure(service, () => withWorkerCpu(service, () => deployTo(`site-${run}.example`, siteForm)));
    if (!siteMemory || peakOf(measured) > peakOf(siteMemory)) siteMemory = measured;
    deployTimes.push(measured.result.ms);
    const floorRun = await withWorkerCpu(floor, () => floorSend(siteForm));
    if (floorRun.body.bytes !== siteBody) throw new Error(`the floor read ${floorRun.body.bytes} bytes of ${siteBody}`);
    floorTimes.push(floorRun.ms);
    const storeFloorRun = await withWorkerCpu(floor, () => storeFloorSend(siteForm));
    if (storeFloorRun.body.bytes !== siteBody) throw new Error(`the storing floor read ${storeFloorRun.body.bytes} bytes of ${siteBody}`);
    storeFloorTimes.push(storeFloorRun.ms);
    workerCpu.push({ deploy: measured.result.cpuMs, floor: floorRun.cpuMs, store: storeFloorRun.cpuMs });
    console.log(
      `  run ${run + 1}: deploy ${seconds(deployTimes.at(-1))}, floor ${seconds(floorTimes.at(-1))}, floor storing to R2 ${seconds(storeFloorTimes.at(-1))}`,
    );
  }

  console.log(`deploying ${count(smallPageCount)} small files, then to the floor…`);
  const smallDeploy = await deployTo('small.example', smallForm);
  const floorSmall = await floorSend(smallForm);

  console.log(`deploying the ${site.length}-file site with the CLI, then again with 1 file changed, then rolling back…`);
  const cliSite = join(workDir, 'cli-site');
  await cp(join(siteRoot, 'site'), cliSite, { recursive: true });
  const changed = join(cliSite, 'index.html');
  const relay = await startCountingRelay(service.port);
  const cliRuns = [];
  try {
    // Fills Node's compile cache, as any run after a first one finds it.
    execFileSync(process.execPath, [join(repo, 'bin/sitehost.mjs'), '--version']);
    for (let run = 0; run < runs; run++) {
      const domain = `cli-${run}.example`;
      const original = await readFile(changed);
      const full = await cliDeploy(relay, token, cliSite, domain);
      await appendFile(changed, `<!-- changed in run ${run + 1} -->\n`);
      const redeploy = await cliDeploy(relay, token, cliSite, domain);
      // Right after the redeploy, through the same relay: the floor meets the load the redeploy met.
      const floorRun = await cliFloor(relay.origin, token);
      const rollbackMs = await rollbackTime(service, token, domain, full.result.deploymentId, '/index.html', original);
      cliRuns.push({ full, redeploy, floor: floorRun, rollbackMs });
      console.log(
        `  CLI run ${run + 1}: full ${seconds(full.ms)} (${mb(full.bytes)} sent), 1 file changed ${seconds(redeploy.ms)} (${redeploy.bytes} bytes sent in ${requests(redeploy.requests)}), CLI floor ${seconds(floorRun.ms)}, rollback served after ${(rollbackMs / 1000).toFixed(3)} s`,
      );
    }
  } finally {
    await relay.close();
  }

  console.log(`deploying ${smallSite.length} files of ~1 KB, as the CLI's first deploy and as one multipart request, alternately…`);
  const packed = installPackedCli();
  const smallRuns = [];
  for (let run = 0; run < runs; run++) {
    // A first deploy: a new domain, and a hash cache of its own, as a CI job's.
    const cli = await cliDeployTo(service.url, token, join(siteRoot, 'small'), `small-cli-${run}.example`, { cacheDir: join(workDir, `small-cache-${run}`) });
    const multipart = await deployTo(`small-multipart-${run}.example`, smallForm1k);
    const packedRun = packed.cli
      ? await cliDeployTo(service.url, token, join(siteRoot, 'small'), `small-packed-${run}.example`, { cli: packed.cli, env: packed.env, cacheDir: join(workDir, `small-packed-cache-${run}`) })
      : undefined;
    if (cli.result.deploymentId === undefined || cli.result.unchanged) throw new Error(`the CLI's first deploy made no deployment: ${JSON.stringify(cli.result)}`);
    smallRuns.push({ cli: cli.ms, multipart: multipart.ms, packed: packedRun?.ms });
    console.log(`  run ${run + 1}: CLI ${seconds(cli.ms)}, multipart ${seconds(multipart.ms)}${packedRun ? `, packed CLI on Node 20 ${seconds(packedRun.ms)}` : ''}`);
  }

  const serviceLog = service.output();
  for (const running of servers.splice(0)) await running.stop();
  const logged = serviceLog.slice(serviceLog.indexOf('Ready on'));
  if (/error|uncaught/i.test(logged)) console.warn(`the service logged errors:\n${logged}`);

  const platformCalls = quick ? undefined : countPlatformCalls();

  // --- report ---
  const deployMedian = median(deployTimes);
  const floorMedian = median(floorTimes);
  const ratio = deployMedian / floorMedian;
  const cpuMedian = (of) => median(workerCpu.map((run) => run[of]));
  // Locally R2 is simulated on the Worker's own thread: what it costs to store the bytes is added
  // to whatever a deploy does, and Cloudflare's R2 does that work on other machines.
  const storingCpuMs = median(workerCpu.map((run) => run.store - run.floor));
  const bestRatio = Math.min(...deployTimes) / Math.min(...floorTimes);
  const growth = growthOf(bigDeploy);
  const verdict = (met) => (met ? 'met' : 'MISSED');
  const cliFullMs = median(cliRuns.map((run) => run.full.ms));
  const cliRedeployMs = median(cliRuns.map((run) => run.redeploy.ms));
  const bytesRatio = median(cliRuns.map((run) => run.redeploy.bytes / run.full.bytes));
  const cliFloorMs = median(cliRuns.map((run) => run.floor.ms));
  // The median of the runs' own ratios: each run's redeploy and floor met the same load.
  const floorRatio = median(cliRuns.map((run) => run.redeploy.ms / run.floor.ms));
  const rollbackMs = median(cliRuns.map((run) => run.rollbackMs));
  const smallCliMs = median(smallRuns.map((run) => run.cli));
  const smallMultipartMs = median(smallRuns.map((run) => run.multipart));
  // The median of the runs' own ratios: each run's two deploys met the same load.
  const smallRatio = median(smallRuns.map((run) => run.cli / run.multipart));
  const bigSiteRatio = cliFullMs / deployMedian;
  const smallBytes = smallSite.reduce((sum, file) => sum + file.size, 0);
  const percent = (ratio) => `${(ratio * 100).toFixed(2)} %`;
  const rows = [
    ['site', `${site.length} files, ${mb(siteBytes)} (multipart body ${mb(siteBody)})`],
    ['deploy wall time', `median ${seconds(deployMedian)}, best ${seconds(Math.min(...deployTimes))} (${runs} runs)`],
    ['files/s (median)', (site.length / (deployMedian / 1000)).toFixed(0)],
    ['MB/s of body (median)', (siteBody / MB / (deployMedian / 1000)).toFixed(1)],
    ['workerd peak memory', describeMemory(siteMemory)],
    ['transfer floor', `median ${seconds(floorMedian)}, best ${seconds(Math.min(...floorTimes))}`],
    ['ratio deploy/floor', `median ${ratio.toFixed(2)}, best ${bestRatio.toFixed(2)} (target ≤ 2.0: ${verdict(ratio <= 2)})`],
    ['floor storing to R2', `median ${seconds(median(storeFloorTimes))}, best ${seconds(Math.min(...storeFloorTimes))}`],
    ['ratio deploy/floor storing to R2', `median ${(deployMedian / median(storeFloorTimes)).toFixed(2)}`],
    ['Worker CPU (median)', `deploy ${seconds(cpuMedian('deploy'))}, floor ${seconds(cpuMedian('floor'))}, floor storing to R2 ${seconds(cpuMedian('store'))}`],
    ['local R2 storing the body', `${seconds(storingCpuMs)} of the Worker's thread (storing floor − floor, CPU), ${(storingCpuMs / floorMedian).toFixed(2)} × the transfer floor`],
    [`${bigLabel} deploy wall time`, seconds(bigDeploy.result.ms)],
    [`${bigLabel} deploy: workerd`, describeMemory(bigDeploy)],
    [`${bigLabel} deploy: peak growth`, `${mb(growth)} (target < 100 MB: ${verdict(growth < 100 * MB)})`],
    [`${bigLabel} to the floor: workerd`, describeMemory(floorBig)],
    [`${bigLabel} deploy: growth beyond the floor`, mb(growth - growthOf(floorBig))],
    [`${count(smallPageCount)} small files: wall time`, `${seconds(smallDeploy.ms)} (floor ${seconds(floorSmall.ms)})`],
    [`CLI full deploy (${count(site.length)} files)`, `median ${seconds(cliFullMs)}, ${mb(median(cliRuns.map((run) => run.full.bytes)))} sent`],
    ['CLI redeploy, 1 file changed', `median ${seconds(cliRedeployMs)}, ${median(cliRuns.map((run) => run.redeploy.bytes))} bytes sent in ${requests(median(cliRuns.map((run) => run.redeploy.requests)))}`],
    [
      'CLI floor: whoami + 2 round trips',
      `median ${seconds(cliFloorMs)} (sitehost whoami ${seconds(median(cliRuns.map((run) => run.floor.whoamiMs)))}, two requests ${seconds(median(cliRuns.map((run) => run.floor.requestsMs)))})`,
    ],
    ['redeploy ÷ full deploy: bytes', `${percent(bytesRatio)} (target ≤ 1 %: ${verdict(bytesRatio <= 0.01)})`],
    ['redeploy ÷ CLI floor: time', `median ${floorRatio.toFixed(2)} (${seconds(cliRedeployMs)} ÷ ${seconds(cliFloorMs)}) (target ≤ 2.0: ${verdict(floorRatio <= 2)})`],
    ['rollback: call to old content served', `median ${(rollbackMs / 1000).toFixed(3)} s (target < 1 s: ${verdict(rollbackMs < 1000)})`],
    [`${smallSite.length} files of ~1 KB (${mb(smallBytes)}): one multipart PUT`, `median ${seconds(smallMultipartMs)}, best ${seconds(Math.min(...smallRuns.map((run) => run.multipart)))}`],
    [`${smallSite.length} files of ~1 KB: CLI first deploy`, `median ${seconds(smallCliMs)}, best ${seconds(Math.min(...smallRuns.map((run) => run.cli)))} (process start to exit)`],
    [`${smallSite.length} files of ~1 KB: CLI first deploy ÷ one multipart request`, `median ${smallRatio.toFixed(2)} (target ≤ 1.5: ${verdict(smallRatio <= 1.5)})`],
    [
      `${smallSite.length} files of ~1 KB: packed CLI on Node 20`,
      packed.cli ? `median ${seconds(median(smallRuns.map((run) => run.packed)))}, ÷ multipart ${median(smallRuns.map((run) => run.packed / run.multipart)).toFixed(2)}` : `not measured: ${packed.why}`,
    ],
    [`${mb(siteBytes)} site: CLI full deploy ÷ multipart deploy`, `${bigSiteRatio.toFixed(2)} (${seconds(cliFullMs)} ÷ ${seconds(deployMedian)}; through the counting relay)`],
    ['20,000 small files: platform calls', platformCalls === undefined ? (quick ? 'not counted in quick mode' : 'unknown') : `${platformCalls} (target ≤ 1000: ${verdict(platformCalls <= 1000)})`],
  ];
  console.log();
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
} finally {
  for (const running of servers) await running.stop();
  await rm(workDir, { recursive: true, force: true });
}
