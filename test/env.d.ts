type SitehostEnv = import('../src/platform/env').Env;
type TestMigrations = import('cloudflare:test').D1Migration[];

declare namespace Cloudflare {
  interface Env extends SitehostEnv {
    TEST_MIGRATIONS: TestMigrations;
    /** USER_RATE_LIMITER's twin with a limit of 3 a minute (vitest.config.ts). */
    TEST_RATE_LIMITER: RateLimit;
    /**
     * A second D1 database, which no Worker code writes (vitest.config.ts): for a test of a query that
     * reads a whole table, since DB holds what every file sharing the runtime stored.
     */
    TEST_WHOLE_TABLE_DB: D1Database;
  }
}
