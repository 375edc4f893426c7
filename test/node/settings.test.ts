import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;

describe('npm start', () => {
  it('refuses a bad setting before starting, naming it', () => {
    const started = spawnSync(process.execPath, ['scripts/start.mjs', '--var', 'MAX_FILES:20k'], {
      cwd: repo,
      env: { ...process.env, AUTH_SECRET: 'settings-test-secret', WRANGLER_SEND_METRICS: 'false' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('The setting MAX_FILES is "20k"; it must be a whole number');
  });
});
