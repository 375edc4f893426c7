import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;

/** `npm start`'s script with `--var NAME:value` for each of `vars`, until it exits (at once when it refuses a setting). */
function startWith(...vars: string[]) {
  return spawnSync(process.execPath, ['scripts/start.mjs', ...vars.flatMap((variable) => ['--var', variable])], {
    cwd: repo,
    env: { ...process.env, AUTH_SECRET: 'settings-test-secret', WRANGLER_SEND_METRICS: 'false' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('npm start', () => {
  it.each([
    [['MAX_FILES:20k'], 'The setting MAX_FILES is "20k"; it must be a whole number'],
    [['API_HOSTNAMES:api.example.com'], 'The setting EDGE_PURGE is "local"; it must be "cloudflare" when API_HOSTNAMES has a public hostname (api.example.com)'],
    [['EDGE_PURGE:cloudflare', 'CLOUDFLARE_ZONE_ID:<zone-id>'], 'The setting CLOUDFLARE_ZONE_ID is "<zone-id>"; it must be your own value in place of'],
  ])('refuses a bad setting before starting, naming it: %j', (vars, message) => {
    const started = startWith(...vars);
    expect(started.status).toBe(1);
    expect(started.stderr).toContain(`npm start: ${message}`);
  });

  it("refuses a rate limit setting that is not its binding's limit", () => {
    const started = startWith('API_REQUESTS_PER_MINUTE:5000');
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('The setting API_REQUESTS_PER_MINUTE is 5000; it must be the limit of the [[ratelimits]] binding USER_RATE_LIMITER');
  });

  it.each([
    [['DOMAIN_PROOF_SECRET:'], 'is not set'],
    [['DOMAIN_PROOF_SECRET:too-short-for-a-key'], 'is 19 characters long'],
  ])('refuses DOMAIN_PROOF=dns without a proof secret of its own (AUTH_SECRET never stands in): %j', (vars, shown) => {
    const started = startWith('DOMAIN_PROOF:dns', ...vars);
    expect(started.status).toBe(1);
    expect(started.stderr).toContain(`npm start: The setting DOMAIN_PROOF_SECRET ${shown}; it must be a random secret of at least 32 characters, other than AUTH_SECRET`);
  });

  it('refuses DOMAIN_PROOF=dns with a resolver that is no URL, naming it', () => {
    const started = startWith('DOMAIN_PROOF:dns', 'DNS_RESOLVER_URL:cloudflare-dns.com');
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('The setting DNS_RESOLVER_URL is "cloudflare-dns.com"; it must be the http(s) URL of a DNS-over-HTTPS JSON API');
  });
});
