import { enableCompileCache } from 'node:module';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { InterleavedSequencer } from './test/support/interleaved-sequencer.ts';

const testSecret = 'test-secret-for-signing-tokens-only';

// Every Node process of the run (Vitest's own, each service's `npm start` script and wrangler, the CLI) compiles
// the same large modules (wrangler and miniflare are megabytes each): Node's compile cache keeps the compiled code
// on disk, so each process after the first that loads them skips most of that (about 0.4 of a service start's 2.2 CPU-seconds).
process.env.NODE_COMPILE_CACHE ??= new URL('./node_modules/.cache/node-compile', import.meta.url).pathname;
enableCompileCache(process.env.NODE_COMPILE_CACHE);

/** The packages the Worker and the workers project's tests import (see `deps.optimizer` below). */
const workerPackages = [
  '@abraham/reflection',
  '@cfworker/json-schema',
  '@noble/hashes/sha2.js',
  '@peculiar/x509',
  '@remix-run/headers/accept',
  '@remix-run/headers/accept-encoding',
  '@remix-run/headers/content-type',
  'crc-32',
  'eventsource-parser',
  'eventsource-parser/stream',
  'fast-check',
  'fast-deep-equal',
  'hono',
  'hono/factory',
  'hono/utils/ipaddr',
  'isbot',
  'jose',
  'mime',
  'picomatch/posix',
  'standardwebhooks',
  'tldts',
  'uri-templates',
];

/**
 * Workers files that read what every site's changes move: the configurations list, its
 * validators and its feed. In a shared runtime the files before them leave changes behind (some made
 * under a Date faked days ahead, stamped so), and background work of theirs may still be changing
 * sites: these read only their own.
 */
const wholeTableFiles = ['test/api/configurations-feed.test.ts', 'test/api/configurations-bursts.test.ts', 'test/api/sites.test.ts'];

/**
 * The test files that run in workerd, with the Worker and local D1, R2, Durable Objects and Queues
 * (the migrations as TEST_MIGRATIONS, applied by test/support/apply-migrations.ts), as project `name`.
 */
function workersProject(name: string, isolate: boolean, include: string[], exclude: string[], migrations: unknown) {
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: { AUTH_SECRET: testSecret, TEST_MIGRATIONS: migrations, RETIRED_DEPLOYMENT_GRACE_SECONDS: '1', DEPLOYMENTS_KEPT: '1', DEPLOYMENTS_KEPT_DAYS: '0', CERT_ENCRYPTION_KEY: 'test-certificate-encryption-key',
            DOMAIN_PROOF_SECRET: 'test-secret-for-domain-proof-values-only',
            // test/serving/freshness.test.ts emulates locations with these caches; a local purge clears them too.
            EDGE_LOCAL_CACHES: 'location-a,location-b,location-c',
            // The suite sends thousands of requests a minute as one user: test/api/rate-limit.test.ts
            // swaps in TEST_RATE_LIMITER, the same binding with a small limit, to reach a limit.
            API_REQUESTS_PER_MINUTE: '1000000', ANONYMOUS_REQUESTS_PER_MINUTE: '1000000',
            // The fuzz suite deploys, and begins incremental deploys, by the hundred as one user on one site
            // (by the thousand under `npm run fuzz`), and test files deploy to over a hundred domains as one
            // user; test/quotas sets these limits low where it tests them.
            DEPLOYS_PER_HOUR: '1000000', MAX_UNFINISHED_DEPLOYMENTS: '1000000', MAX_SITES_PER_USER: '1000000',
            // Files written before protected previews read their sites' previews without a share link;
            // test/serving/protection*.test.ts pass the service's default, "members", where they test it.
            // Files that wait on a request's background work would wait out an analytics interval
            // for its timed send; the black-box tests (test/node/cli/analytics.test.ts) use it.
            NEW_SITE_PREVIEWS: 'public', ANALYTICS_TIMED_SENDS: 'off', SIGN_IN_ATTEMPTS_PER_MINUTE: '5' },
          // test/env.d.ts: for the tests of queries that read a whole table, which DB (shared by the files of a runtime) cannot answer alone.
          d1Databases: { TEST_WHOLE_TABLE_DB: 'test-whole-table' },
          ratelimits: {
            USER_RATE_LIMITER: { namespace_id: '2601', simple: { limit: 1_000_000, period: 60 } },
            ADDRESS_RATE_LIMITER: { namespace_id: '2602', simple: { limit: 1_000_000, period: 60 } },
            SIGN_IN_RATE_LIMITER: { namespace_id: '2603', simple: { limit: 5, period: 60 } },
            TEST_RATE_LIMITER: { namespace_id: '2699', simple: { limit: 3, period: 60 } },
          },
        },
      }),
    ],
    test: {
      name,
      isolate,
      // Each file's runtime loads the Worker's modules one by one from Vitest; the packages among them
      // are bundled once per run instead (Vite's dependency optimizer), so a file loads a few modules
      // where it loaded hundreds: 8 small files took 18.0-19.8 CPU-seconds rather than 23.4-24.4.
      // A package not listed here still works, loaded module by module.
      deps: { optimizer: { ssr: { enabled: true, include: workerPackages } } },
      include,
      exclude,
      globalSetup: ['./test/support/build-worker-modules.mjs'],
      // documented-answers.ts: every answer a test gets from the API is checked against schema/openapi.json.
      setupFiles: ['./test/support/apply-migrations.ts', './test/support/documented-answers.ts'],
      // Budgets only for a hang, hooks as tests: a busy machine must not fail a file (a beforeAll that deploys
      // a site took over Vitest's default 10 s on a loaded machine with a cold cache, failing the fuzzed JSON bodies).
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // test/fuzz/settings.ts: `npm run fuzz` sets these; `npm test` leaves them empty (fixed seed, short run).
      provide: { fuzzSeed: process.env.FUZZ_SEED ?? '', fuzzRuns: process.env.FUZZ_RUNS ?? '' },
    },
  };
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations('./schema/migrations');
  return {
    // JSON modules as one JSON.parse of a string, without a named export per key: schema/openapi.json, which the Worker
    // and every workers file's answer check import, is 0.2 MB rather than 0.9 MB (code and source map) for each
    // file's runtime to receive and compile.
    json: { stringify: true },
    test: {
      // Vitest's default on a 2-core machine is one file at a time, while most files spend much of
      // their time waiting (runtimes and services starting, Pebble retrying, events crossing queues).
      // On 2 cores, 19 workers files took 111 s one at a time, 53 s three at a time, 65 s with six.
      maxWorkers: 4,
      // The black-box files, which mostly wait, run beside the workers files, which compute (test/support/interleaved-sequencer.ts).
      sequence: { sequencer: InterleavedSequencer },
      // The ten slowest files and each project's time after every run (test/support/slowest-files.ts, project-times.ts).
      reporters: ['default', './test/support/slowest-files.ts', './test/support/project-times.ts'],
      projects: [
        {
          // Pure logic, in Node: no runtime starts. `npm run test:unit` is the inner loop.
          test: {
            name: 'unit',
            include: ['test/**/*.unit.test.ts'],
            environment: 'node',
            // Pure functions, no state between files: one worker process runs file after file rather
            // than a new one each (24 files: 14.6 -> 10.4 CPU-seconds, measured twice).
            isolate: false,
            // A budget only for a hang: a busy machine must not fail a test.
            testTimeout: 60_000,
            // test/fuzz/settings.ts, for the properties of pure logic (as in the workers project below).
            provide: { fuzzSeed: process.env.FUZZ_SEED ?? '', fuzzRuns: process.env.FUZZ_RUNS ?? '' },
          },
        },
        // Files share a runtime, one after another, rather than each starting one of its own (about 1.8 CPU-seconds:
        // workerd's start and the Worker's modules): the project took 154 CPU-seconds rather than 318. So a file
        // finds what the files before it stored: each uses domains and users of its own
        // (test/shared-runtime.unit.test.ts checks the domains), and none expects an empty database.
        workersProject('workers', false, ['test/**/*.test.ts'], ['test/node/**', 'test/**/*.unit.test.ts', ...wholeTableFiles], migrations),
        // Each in a runtime of its own, with storage of its own: what they read is every site's.
        workersProject('workers-alone', true, wholeTableFiles, [], migrations),
        {
          test: {
            name: 'node',
            include: ['test/node/**/*.test.ts'],
            environment: 'node',
            // A worker process runs file after file rather than a new one each (its Node start and Vitest's runtime: 48
            // processes took 27.6 CPU-s, 7 took 22.7); no file sets the environment, globals or fake timers for the next.
            isolate: false,
            // One migrated local state every service copies, the Worker bundled once for every service, one service shared by
            // the files that need no settings of their own, and one Chromium for the files that drive a browser.
            globalSetup: [
              './test/node/support/migrated-state.ts',
              './test/node/support/worker-bundle.ts',
              './test/node/support/shared-service.ts',
              './test/node/support/chromium-server.ts',
            ],
            // Black-box tests wait on a real service under a loaded 2-core CI machine, and on
            // events that cross the notifications queue (batched for up to a second).
            expect: { poll: { timeout: 10_000 } },
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
