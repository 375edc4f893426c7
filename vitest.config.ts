import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

const testSecret = 'test-secret-for-signing-tokens-only';

export default defineConfig(async () => {
  const migrations = await readD1Migrations('./schema/migrations');
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: { AUTH_SECRET: testSecret, TEST_MIGRATIONS: migrations, RETIRED_DEPLOYMENT_GRACE_SECONDS: '1', DEPLOYMENTS_KEPT: '1', DEPLOYMENTS_KEPT_DAYS: '0', CERT_ENCRYPTION_KEY: 'test-certificate-encryption-key',
                  // test/serving/freshness.test.ts emulates locations with these caches; a local purge clears them too.
                  EDGE_LOCAL_CACHES: 'location-a,location-b,location-c' },
              },
            }),
          ],
          test: {
            name: 'workers',
            include: ['test/**/*.test.ts'],
            exclude: ['test/node/**'],
            globalSetup: ['./test/support/build-dashboard.mjs'],
            // documented-answers.ts: every answer a test gets from the API is checked against schema/openapi.json.
            setupFiles: ['./test/support/apply-migrations.ts', './test/support/documented-answers.ts'],
            testTimeout: 60_000,
            // test/fuzz/settings.ts: `npm run fuzz` sets these; `npm test` leaves them empty (fixed seed, short run).
            provide: { fuzzSeed: process.env.FUZZ_SEED ?? '', fuzzRuns: process.env.FUZZ_RUNS ?? '' },
          },
        },
        {
          test: {
            name: 'node',
            include: ['test/node/**/*.test.ts'],
            environment: 'node',
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
