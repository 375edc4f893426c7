// `npm run bench:serve`: how fast the service serves a deployed site, against what the same
// local runtime and nginx do with the same files.
//
// Needs wrk and nginx from Debian (installs nothing itself):
//   apt-get update && apt-get install -y wrk nginx-light
//
// Starts, each on a free loopback port and stopped at the end:
//   service        this Worker (scripts/start.mjs, wrangler dev, state in a temporary dir)
//                  serving a site deployed to it, requested with its Host header;
//   static-assets  the same files served by Workers Static Assets (bench/serve/static-assets);
//   floor          a Worker answering each file's bytes from memory with the same Content-Type,
//                  no lookup, no header of its own (bench/serve/floor): the runtime's cost of
//                  sending that response, which no Worker serving it can undercut;
//   hello-world    the same Worker's `/hello`, 11 bytes: the runtime's cost of any answer;
//   nginx          nginx serving the same folder (one worker process, like one workerd).
// All Workers run under `wrangler dev`, whose proxy also passes every HTML response through
// HTMLRewriter (for live reload): the floor's HTML pays it as the service's does.
// For a 2 KB HTML page, a 100 KB script and a 1 MB image it runs wrk (BENCH_THREADS threads,
// default 2; BENCH_CONNECTIONS connections, default 32) after a 1 s warm-up, in BENCH_ROUNDS
// rounds (default 5) of BENCH_SECONDS seconds (default 4) taking turns between the servers
// (every other round in the reverse order), and prints the median round's requests/s and p99
// latency for each server, and the service's ratios: each the median of its rounds' ratios,
// the two servers measured seconds apart in the same round, with the lowest and highest round.
// Targets: at least Static Assets' requests/s on every file, at least 0.8 of the floor's.
// `protected` is the same files on a members-only site of the same service, requested with a
// member's grant cookie: at least 0.9 of the open site's requests/s (letting a member in is a
// lookup of a grant the isolate verified, docs/serving.md). `service-again` is the open site
// measured a second time in each round, right before the service: its ratio to the service (an
// A/A) shows how far this run's noise alone moves a ratio. The ratio to the hello-world is
// printed too: for the 1 MB image no Worker comes near it, the floor itself included, as the
// floor's own ratio shows. Quick mode (bench/mode.mjs): one round of 1 s, no warm-up.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, inspectorArgs } from '../deploy/processes.mjs';
import { announce, quick, setting, target } from '../mode.mjs';
import { startProcess } from './servers.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const here = new URL('.', import.meta.url).pathname;
const wrangler = join(repo, 'node_modules/wrangler/bin/wrangler.js');
const seconds = setting('BENCH_SECONDS', 4, 1);
const rounds = setting('BENCH_ROUNDS', 5, 1);
const threads = setting('BENCH_THREADS', 2);
const connections = setting('BENCH_CONNECTIONS', 32);
const domain = 'bench.example';
/** The same files on a site only members open, requested with a share link's grant cookie. */
const protectedDomain = 'bench-protected.example';

/** `type`: the Content-Type the service answers for the file, which the floor answers too. */
const files = [
  { label: '2 KB HTML page', name: 'index.html', path: '/', type: 'text/html; charset=utf-8', bytes: htmlPage(2 * 1024) },
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

async function startService() {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const secret = randomBytes(32).toString('base64url');
  const env = { PORT: String(port), SITEHOST_PERSIST_DIR: join(workDir, 'state'), AUTH_SECRET: secret };
  servers.push(await startProcess(process.execPath, ['scripts/start.mjs', ...quiet, ...(await inspectorArgs())], { cwd: repo, env, readyUrl: origin }));
  const token = execFileSync(process.execPath, ['scripts/token.mjs', '--user', 'github|bench', '--scope', 'deploy'], {
    cwd: repo,
    env: { ...process.env, AUTH_SECRET: secret },
  })
    .toString()
    .trim();
  const call = async (method, path, body) => {
    const response = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }) }, body: body instanceof FormData ? body : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${await response.text()}`);
    return response.json();
  };
  for (const site of [domain, protectedDomain]) {
    const form = new FormData();
    for (const file of files) form.append('directory', await openAsBlob(join(siteDir, file.name)), file.name);
    await call('PUT', `/v2/sites/${site}`, form);
  }
  await call('PUT', `/v2/sites/${protectedDomain}/protection`, { previews: 'members', site: 'members' });
  // The link's grant is what opening it sets as the host's cookie.
  const link = await call('POST', `/v2/sites/${protectedDomain}/share`, { expiresIn: 3600 });
  const grant = new URL(link.url).searchParams.get('grant');
  return { origin, cookie: `sitehost_grant=${grant}` };
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

/** Runs wrk and returns requests/s and the p99 latency in ms. */
async function wrk(url, host, duration, cookie) {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${duration}s`, '--latency', '--timeout', '5s'];
  if (host) args.push('-H', `Host: ${host}`);
  if (cookie) args.push('-H', `Cookie: ${cookie}`);
  const { stdout } = await promisify(execFile)('wrk', [...args, url]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const [, value, unit] = /^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(stdout) ?? [];
  const p99 = Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  if (errors) throw new Error(`${url}: ${errors} failed responses\n${stdout}`);
  return { rps, p99 };
}

/** Checks that a server answers with the file's bytes before measuring it (fetch cannot set Host). */
function check(url, host, file, cookie) {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { ...(host ? { host } : {}), ...(cookie ? { cookie } : {}) } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200 && body.equals(file.bytes)) resolve();
        else reject(new Error(`${url} (Host ${host ?? 'default'}) answered ${response.statusCode} with ${body.length} bytes, not ${file.name}`));
      });
    });
    request.on('error', reject);
  });
}

const format = (value, digits) => value.toFixed(digits).padStart(10);
/** The run with the median requests/s. */
const median = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

announce('bench:serve');
try {
  console.log('starting servers…');
  const floor = await startFloor();
  const service = await startService();
  const contenders = {
    service: { origin: service.origin, host: domain },
    protected: { origin: service.origin, host: protectedDomain, cookie: service.cookie },
    // The same site again: its ratio to the service is the instrument's own noise (an A/A test); a quick run measures nothing.
    ...(quick ? {} : { 'service-again': { origin: service.origin, host: domain } }),
    'static-assets': { origin: await wranglerDev(join(here, 'static-assets/wrangler.toml'), ['--assets', siteDir]) },
    floor: { origin: floor },
    'hello-world': { origin: floor, path: '/hello' },
    nginx: { origin: await startNginx() },
  };
  console.log(`wrk: ${threads} threads, ${connections} connections, ${rounds} rounds of ${seconds} s per case\n`);
  for (const file of files) {
    const targets = Object.entries(contenders).map(([name, { origin, host, path, cookie }]) => ({
      name,
      host,
      cookie,
      url: `${origin}${path ?? file.path}`,
    }));
    for (const { name, url, host, cookie } of targets) {
      if (name !== 'hello-world') await check(url, host, file, cookie);
      if (!quick) await wrk(url, host, 1, cookie);
    }
    // Rounds take turns between the servers, so that load from elsewhere on the machine
    // weighs on all of them alike; every other round runs them in the reverse order, so that
    // none always follows the same one. The median round counts.
    // The A/A runs right before the service and `protected` right after it, so both pairs are as near.
    const runs = Object.fromEntries(targets.map(({ name }) => [name, []]));
    const order = [...targets.filter(({ name }) => name === 'service-again'), ...targets.filter(({ name }) => name !== 'service-again')];
    for (let round = 0; round < rounds; round++) {
      for (const { name, url, host, cookie } of round % 2 === 0 ? order : [...order].reverse()) runs[name].push(await wrk(url, host, seconds, cookie));
    }
    const results = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, median(list)]));
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
    target(`  ${file.label}: protected (member's cookie) / service ${figure('protected', 'service')}`, '>= 0.90', ratio('protected', 'service') >= 0.9);
    if (!quick) console.log(`  service-again / service ${figure('service-again', 'service')}: the A/A, what this run's noise alone makes of a ratio`);
    console.log(
      `  service / hello-world: ${ratio('service', 'hello-world').toFixed(2)}` +
        `   floor / hello-world: ${ratio('floor', 'hello-world').toFixed(2)} (what sending these bytes costs the runtime)\n`,
    );
  }
} finally {
  for (const server of servers.reverse()) await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
