// `npm run bench:scale`: the API at 1k, 10k and 100k sites (issue 32), against the real local
// runtime (scripts/start.mjs: wrangler dev, state in a temporary dir).
//
// Seeding is a bench-only shortcut: with the service stopped, the local D1 database (a SQLite file
// under the state dir) is written directly, each seeded site a copy of the rows one real deploy
// left in every table that has a `domain` column (its domain, deployment id and object keys
// renamed), with host options of about 430 bytes, and configuration stamps below the clock. R2
// holds no object for them: nothing measured here reads one.
//
// Each size is its own service (a copy of the template's state, seeded), all running side by side;
// in each of BENCH_RUNS (default 5) runs every call is made at every size in turn before the next
// call, so that the machine's load weighs on the sizes alike; medians of: a deploy (10 files, a new domain each), one configuration read,
// GET /v2/usage, GET /v2/sites, the whole GET /v2/configurations (time, and the growth of
// workerd's resident memory while it streams), its 304, and the feed after a cursor taken before
// the run's deploy; and GET /v2/whoami, the floor any authenticated call pays on this machine.
// Then one line per target.
// The global D1's bytes are measured on the database itself (SQLite's dbstat: bytes used by every
// table and index, the hourly deploy counts left out, the per-user byte totals `stored_bytes`
// counted): per stored file (a 1,010-file deploy less a 10-file one, over 1,000) and per site kept
// with 20 deployments (the directory of preview hosts included, and printed apart; the deployments
// themselves live in the coordinators' storage). Seeded sites copy the template's `stored_bytes`
// row and directory rows too, each its own owner. D1 statements per deploy are counted by
// test/deploy/d1-statements.test.ts (run here).
// BENCH_SIZES (default 1000,10000,100000) sets the sizes. Quick mode (bench/mode.mjs): sizes 10
// and 100, one run, a 110-file deploy for the bytes per file and 5 kept deployments; the D1
// statements per deploy (which `npm test` counts) are left out.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { freePort, measureMemory, startServer, workerdPids } from '../deploy/processes.mjs';
import { signToken } from '../../scripts/sign-token.mjs';
import { announce, listSetting, quick, setting, target } from '../mode.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const runs = setting('BENCH_RUNS', 5, 1);
const sizes = listSetting('BENCH_SIZES', [1000, 10000, 100000], [10, 100]);
/** The files of the deploy that, less a 10-file one, gives the bytes per stored file. */
const manyFiles = quick ? 110 : 1010;
/** The deployments a site keeps for the bytes per site (DEPLOYMENTS_KEPT's default). */
const kept = quick ? 5 : 20;
const secret = randomBytes(32).toString('base64url');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => `${value.toFixed(1)} ms`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Host options of about 430 bytes, as the issue measured. */
const hostOptions = {
  root: 'public',
  fallback: { 200: '/index.html' },
  headers: [
    { uri: '/assets/{file}', fields: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Asset': '{file}' } },
    { fields: { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains; preload', 'X-Content-Type-Options': 'nosniff' } },
  ],
  redirects: [
    { from: '/old-blog/:slug', to: '/blog/:slug', status: 301 },
    { from: '/docs', to: '/documentation/', status: 302 },
    { from: '/feed', to: '/rss.xml', status: 301 },
  ],
};

const deployer = await signToken({ user: 'github|bench-scale', scope: 'deploy', secret, ttl: '6h' });
const reader = await signToken({ user: 'github|bench-reader', scope: 'global_read', secret, ttl: '6h' });

const workDir = await mkdtemp(join(tmpdir(), 'sitehost-bench-scale-'));

/** One local service with its own state: the template's, or one seeded to a size. */
class Service {
  constructor(name) {
    this.persistDir = join(workDir, name);
  }

  async start() {
    const port = await freePort();
    this.server = await startServer([join(repo, 'scripts/start.mjs')], {
      cwd: repo,
      env: { PORT: String(port), SITEHOST_PERSIST_DIR: this.persistDir, AUTH_SECRET: secret },
      timeoutMs: 180_000,
    });
    this.origin = `http://127.0.0.1:${port}`;
  }

  async stop() {
    await this.server?.stop();
    this.server = undefined;
  }

  /** The local D1 database's SQLite file. */
  databaseFile() {
    const dir = join(this.persistDir, 'v3/d1/miniflare-D1DatabaseObject');
    const files = readdirSync(dir).filter((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite');
    if (files.length !== 1) throw new Error(`expected one D1 database in ${dir}, found ${files.join(', ')}`);
    return join(dir, files[0]);
  }

  call(path, { token = deployer, ...init } = {}) {
    return fetch(`${this.origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  }

  /** Milliseconds from sending `path` to the whole answer, which must have `status`. */
  async timed(path, init = {}, status = 200) {
    const started = performance.now();
    const response = await this.call(path, init);
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status !== status) throw new Error(`${path}: ${response.status} ${new TextDecoder().decode(body).slice(0, 300)}`);
    return { ms: elapsed, response, bytes: body.byteLength };
  }

  deploy(domain, files) {
    return this.timed(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm(files) });
  }
}

function deployForm(files, configuration = hostOptions) {
  const form = new FormData();
  form.append('configuration', JSON.stringify(configuration));
  for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], `site/${path}`));
  return form;
}

const smallSite = (tag, count = 10) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`page-${i}.html`, `<p>${tag} ${i}</p>`]));

/** Bytes the global D1 holds in every table and index (those named `like`: the directory of preview hosts, say), the transient hourly deploy counts left out. */
function databaseBytes(service, like = '%') {
  const db = new DatabaseSync(service.databaseFile(), { readOnly: true });
  try {
    const row = db.prepare("SELECT SUM(pgsize - unused) AS bytes FROM dbstat WHERE name LIKE ? AND name NOT LIKE 'user_deploys%' AND name NOT LIKE 'sqlite_%'").get(like);
    return Number(row.bytes);
  } finally {
    db.close();
  }
}

/** Tables with a `domain` column: what one site's rows are, everywhere. */
function domainTables(db) {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .all()
    .map((row) => row.name)
    .filter((table) => db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().some((column) => column.name === 'domain'));
}

/**
 * Writes sites `from`..`to`-1 as copies of the template site's rows, renamed; their configuration
 * stamps are distinct, below every stamp so far (so below the clock).
 */
function seed(service, template, from, to) {
  const db = new DatabaseSync(service.databaseFile());
  try {
    const tables = domainTables(db).filter((table) => table !== 'unpublished_configurations');
    const rows = Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" WHERE domain = ?`).all(template)]));
    // Deployment ids: the directory's (deployments live in coordinators now), and any a legacy `deployments` row holds.
    const ids = new Set([...(rows.deployment_hosts ?? []), ...(rows.deployments ?? [])].map((row) => row.id));
    const templateOwner = rows.sites[0].user_id;
    // Below every stamp so far: distinct, and older than the clock.
    const { lowest } = db.prepare('SELECT MIN(configuration_modified) AS lowest FROM sites').get();
    const inserts = Object.fromEntries(
      tables.filter((table) => rows[table].length > 0).map((table) => {
        const columns = Object.keys(rows[table][0]);
        return [table, { columns, statement: db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`) }];
      }),
    );
    db.exec('BEGIN');
    for (let i = from; i < to; i++) {
      const domain = `seed-${String(i).padStart(7, '0')}.example`;
      const rename = (value) => {
        if (typeof value !== 'string') return value;
        // Each seeded site its own owner, as a public service's sites mostly are.
        if (value === templateOwner) return `github|seed-${i}`;
        let renamed = value.split(template).join(domain);
        for (const id of ids) renamed = renamed.split(id).join(`${id.slice(0, 8)}${String(i).padStart(7, '0')}`);
        return renamed;
      };
      for (const [table, { columns, statement }] of Object.entries(inserts)) {
        for (const row of rows[table]) {
          const values = columns.map((column) => (column === 'configuration_modified' ? lowest - (to - i) : rename(row[column])));
          statement.run(...values);
        }
      }
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/** The full list: its time, bytes, and workerd's memory growth while it streams. */
async function fullList(service) {
  const measured = await measureMemory(workerdPids(service.server.pid), () => service.timed('/v2/configurations', { token: reader }));
  const growth = measured.processes.reduce((sum, entry) => sum + Math.max(0, entry.peak - entry.before), 0);
  return { ...measured.result, growth };
}

const seededDomain = (size) => `seed-${String(Math.floor(size / 2)).padStart(7, '0')}.example`;

/**
 * One run's measured calls, in order; each is made at every size before the next: `state` carries
 * a size's cursor from before its deploy, and its list's validator. The whole list comes last, so
 * that no call is timed just after a service streamed tens of megabytes.
 */
const steps = [
  async (service, size, run, samples, state) => {
    state.before = (await service.timed('/v2/configurations?limit=1', { token: reader })).response.headers.get('sitehost-cursor');
  },
  async (service, size, run, samples) => samples.floor.push((await service.timed('/v2/whoami')).ms),
  async (service, size, run, samples) => samples.deploy.push((await service.deploy(`bench-${size}-${run}.example`, smallSite(`${size}-${run}`))).ms),
  async (service, size, run, samples) => samples.configuration.push((await service.timed(`/v2/sites/${seededDomain(size)}/configuration`, { token: reader })).ms),
  async (service, size, run, samples) => samples.usage.push((await service.timed('/v2/usage')).ms),
  async (service, size, run, samples) => samples.sites.push((await service.timed('/v2/sites')).ms),
  async (service, size, run, samples, state) => {
    // A page's answer carries the whole list's validators (one clock row): the list's ETag, taken without streaming it.
    state.etag = (await service.timed('/v2/configurations?limit=1', { token: reader })).response.headers.get('etag');
    samples.notModified.push((await service.timed('/v2/configurations', { token: reader, headers: { 'if-none-match': state.etag } }, 304)).ms);
  },
  async (service, size, run, samples, state) => samples.feed.push((await service.timed(`/v2/configurations?${new URLSearchParams({ since: state.before })}`, { token: reader })).ms),
  async (service, size, run, samples, state) => {
    const list = await fullList(service);
    if (list.response.headers.get('etag') !== state.etag) throw new Error(`the list's ETag ${list.response.headers.get('etag')} is not its page's ${state.etag}`);
    samples.list.push(list.ms);
    samples.listGrowth.push(list.growth);
    samples.listBytes.push(list.bytes);
  },
];

/**
 * Medians of `runs` runs at every size. The services run side by side and each call is made at
 * every size in turn (the order rotated each run) before the next call, so the machine's load
 * weighs on every size alike: a ratio between sizes measures the sizes, not what else the
 * machine did meanwhile.
 */
async function measureAll(services) {
  const samples = new Map([...services.keys()].map((size) => [size, { floor: [], deploy: [], configuration: [], usage: [], sites: [], list: [], listGrowth: [], listBytes: [], notModified: [], feed: [] }]));
  const order = [...services.keys()];
  for (let run = 0; run < runs; run++) {
    const rotated = [...order.slice(run % order.length), ...order.slice(0, run % order.length)];
    const states = new Map(order.map((size) => [size, {}]));
    for (const step of steps) {
      for (const size of rotated) await step(services.get(size), size, run, samples.get(size), states.get(size));
    }
  }
  const results = new Map();
  for (const [size, values] of samples) {
    const result = Object.fromEntries(Object.entries(values).map(([name, list]) => [name, median(list)]));
    console.log(
      `${size} sites: floor (GET /v2/whoami) ${ms(result.floor)}, deploy ${ms(result.deploy)}, configuration ${ms(result.configuration)}, usage ${ms(result.usage)}, sites ${ms(result.sites)}, ` +
        `full list ${ms(result.list)} (${mb(result.listBytes)}, workerd +${mb(result.listGrowth)}), 304 ${ms(result.notModified)}, feed ${ms(result.feed)}`,
    );
    results.set(size, result);
  }
  return results;
}

/** D1 statements per redeploy, as the workers test counts them. */
function statementsPerDeploy() {
  const output = execFileSync(process.execPath, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', 'test/deploy/d1-statements.test.ts'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const match = /D1 statements per deploy: first (\d+), redeploy (\d+)/.exec(output);
  if (!match) throw new Error(`no count in:\n${output}`);
  return { first: Number(match[1]), redeploy: Number(match[2]) };
}


const template = new Service('template');
const services = new Map(sizes.map((size) => [size, new Service(`sites-${size}`)]));
try {
  announce('bench:scale');
  console.log(`bench:scale: ${runs} runs a size, sizes ${sizes.join(', ')}; state in ${workDir}`);
  await template.start();
  // The template: one real deploy, whose rows every seeded site copies.
  await template.deploy('template.example', smallSite('template'));
  // Bytes per stored file, and per site with 20 kept deployments (DEPLOYMENTS_KEPT's default).
  let bytes = databaseBytes(template);
  await template.deploy('files-10.example', smallSite('ten'));
  const tenFiles = databaseBytes(template) - bytes;
  bytes = databaseBytes(template);
  await template.deploy(`files-${manyFiles}.example`, smallSite('many', manyFiles));
  const manyBytes = databaseBytes(template) - bytes;
  const perFile = (manyBytes - tenFiles) / (manyFiles - 10);
  bytes = databaseBytes(template);
  const directoryBefore = databaseBytes(template, 'deployment_hosts%');
  for (let i = 0; i < kept; i++) await template.deploy(`kept-${kept}.example`, smallSite(`kept ${i}`, 2));
  const perSite = databaseBytes(template) - bytes;
  // Counted in perSite too: the directory of preview and alias hosts, a row per kept deployment (its table and index).
  const directory = databaseBytes(template, 'deployment_hosts%') - directoryBefore;
  console.log(
    `global D1 bytes: a site of 10 files and one deployment ${tenFiles}; of ${manyFiles.toLocaleString('en')} files ${manyBytes}; kept with ${kept} deployments ${perSite}, of which its ${kept} rows in the directory of preview hosts ${directory}`,
  );
  await template.stop();

  for (const [size, service] of services) {
    const started = performance.now();
    await cp(template.persistDir, service.persistDir, { recursive: true });
    seed(service, 'template.example', 0, size);
    const total = databaseBytes(service);
    console.log(`seeded ${size} sites in ${((performance.now() - started) / 1000).toFixed(1)} s; global D1 ${mb(total)}, ${(total / size).toFixed(0)} bytes a site`);
  }
  for (const service of services.values()) await service.start();
  const results = await measureAll(services);
  for (const service of services.values()) await service.stop();

  const statements = quick ? undefined : statementsPerDeploy();
  const smallest = results.get(sizes[0]);
  const largest = results.get(sizes.at(-1));
  const [low, high] = [sizes[0], sizes.at(-1)];
  for (const [name, label] of [['deploy', 'deploy'], ['configuration', 'one configuration read'], ['usage', 'GET /v2/usage'], ['sites', 'GET /v2/sites'], ['notModified', 'the 304'], ['feed', 'the feed']]) {
    const ratio = largest[name] / smallest[name];
    // The machine's load moves every call alike: the floor's own ratio tells how much of the ratio is load.
    const adjusted = ratio / (largest.floor / smallest.floor);
    target(`${label}: ${ms(largest[name])} at ${high} ÷ ${ms(smallest[name])} at ${low} = ${ratio.toFixed(2)} (${adjusted.toFixed(2)} against the floor's own ratio)`, '≤ 1.5', ratio <= 1.5);
  }
  console.log(`floor (GET /v2/whoami): ${ms(largest.floor)} at ${high} ÷ ${ms(smallest.floor)} at ${low} = ${(largest.floor / smallest.floor).toFixed(2)}: near 1 when the sizes shared the machine's load`);
  console.log(`full list: ${ms(largest.list)} at ${high} ÷ ${ms(smallest.list)} at ${low} (linear by nature: no target)`);
  target(`full-list memory growth at ${high}: ${mb(largest.listGrowth)}`, '≤ 64 MB', largest.listGrowth <= 64e6);
  target(`304 at ${high}: ${ms(largest.notModified)}`, '≤ 50 ms', largest.notModified <= 50);
  target(`feed at ${high}: ${ms(largest.feed)}`, '≤ 200 ms', largest.feed <= 200);
  // Under one byte a file is no row per file: what is left is the rounding of SQLite's pages.
  target(`global D1 bytes per stored file: ${perFile.toFixed(2)}`, '= 0', Math.round(perFile) === 0);
  const options = JSON.stringify(hostOptions).length;
  target(`global D1 bytes per site with ${kept} kept deployments: ${perSite} (host options ${options}; the directory of preview hosts ${directory})`, `≤ 4096 + ${options}`, perSite <= 4096 + options);
  if (statements) target(`D1 statements per deploy: ${statements.redeploy} (a first deploy: ${statements.first})`, '≤ 10', statements.redeploy <= 10);
  else console.log('D1 statements per deploy: not counted in quick mode');
} finally {
  for (const service of [template, ...services.values()]) await service.stop();
  await rm(workDir, { recursive: true, force: true });
}
