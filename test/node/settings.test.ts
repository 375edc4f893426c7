import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;

describe('npm start', () => {
  it.each([
    [['MAX_FILES:20k'], 'The setting MAX_FILES is "20k"; it must be a whole number'],
    [['API_HOSTNAMES:api.example.com'], 'The setting EDGE_PURGE is "local"; it must be "cloudflare" when API_HOSTNAMES has a public hostname (api.example.com)'],
    [['EDGE_PURGE:cloudflare', 'CLOUDFLARE_ZONE_ID:<zone-id>'], 'The setting CLOUDFLARE_ZONE_ID is "<zone-id>"; it must be your own value in place of'],
  ])('refuses a bad setting before starting, naming it: %j', (vars, message) => {
    const started = spawnSync(process.execPath, ['scripts/start.mjs', ...vars.flatMap((value) => ['--var', value])], {
      cwd: repo,
      env: { ...process.env, AUTH_SECRET: 'settings-test-secret', WRANGLER_SEND_METRICS: 'false' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toContain(`npm start: ${message}`);
  });
});
