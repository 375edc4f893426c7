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
                bindings: { AUTH_SECRET: testSecret, TEST_MIGRATIONS: migrations, RETIRED_DEPLOYMENT_GRACE_SECONDS: '1', CERT_ENCRYPTION_KEY: 'test-certificate-encryption-key' },
              },
            }),
          ],
          test: {
            name: 'workers',
            include: ['test/**/*.test.ts'],
            exclude: ['test/node/**'],
            setupFiles: ['./test/support/apply-migrations.ts'],
            testTimeout: 60_000,
          },
        },
        {
          test: {
            name: 'node',
            include: ['test/node/**/*.test.ts'],
            environment: 'node',
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
