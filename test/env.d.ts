type SitehostEnv = import('../src/platform/env').Env;
type TestMigrations = import('cloudflare:test').D1Migration[];

declare namespace Cloudflare {
  interface Env extends SitehostEnv {
    TEST_MIGRATIONS: TestMigrations;
  }
}
