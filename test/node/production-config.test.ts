import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkProduction, readConfigs } from '../../scripts/production-config.ts';
import { InvalidSetting, type SettingVars, parseSettings } from '../../src/platform/settings';

const repo = new URL('../..', import.meta.url).pathname;
const shipped = readConfigs();
type Configs = typeof shipped;
type Production = Configs['production'];

/** wrangler.toml as shipped, with `change` made to a copy of its production environment. */
function withProduction(change: (production: Production) => void): Configs {
  const production = structuredClone(shipped.production);
  change(production);
  return { local: shipped.local, production };
}

describe("wrangler.toml's production environment", () => {
  it('repeats every var and binding of the top level, and passes the settings checks', () => {
    expect(checkProduction(shipped).problems).toEqual([]);
  });

  it("lists the operator's values as placeholders: hostnames, the zone, the database", () => {
    expect(checkProduction(shipped).placeholders).toEqual(
      expect.arrayContaining([
        'routes[0].pattern = "<api-hostname>"',
        'routes[1].pattern = "*.<preview-hostname>/*"',
        'vars.API_HOSTNAMES = "<api-hostname>"',
        'vars.PREVIEW_HOSTNAME = "<preview-hostname>"',
        'vars.CLOUDFLARE_ZONE_ID = "<zone-id>"',
        'd1_databases[0].database_id = "<database-id>"',
      ]),
    );
  });

  it("lists the top level's all-zero database id left in production", () => {
    const copied = withProduction((production) => (production.d1_databases[0]!.database_id = shipped.local.d1_databases[0]!.database_id));
    expect(checkProduction(copied).placeholders).toContain('d1_databases[0].database_id = "00000000-0000-0000-0000-000000000000"');
  });

  it('has a Worker that refuses to serve while any of its vars holds a placeholder, naming it', () => {
    const vars = shipped.production.vars as Record<string, string>;
    const filledIn = Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, value.replaceAll(/[<>]/g, '')]));
    const withPlaceholders = Object.keys(vars).filter((name) => /<[^<>]*>/.test(vars[name]!));
    expect(withPlaceholders.length).toBeGreaterThan(0);
    for (const name of withPlaceholders) {
      const attempt = () => parseSettings({ ...filledIn, AUTH_SECRET: 'stand-in', [name]: vars[name] } as SettingVars);
      expect(attempt).toThrow(InvalidSetting);
      expect(attempt).toThrow(`The setting ${name} is ${JSON.stringify(vars[name])}; it must be your own value in place of`);
    }
  });

  it.each([
    ['a var set at the top level only', (p: Production) => delete (p.vars as Record<string, unknown>).MAX_FILES, 'lacks vars MAX_FILES'],
    [
      'a Durable Object binding',
      (p: Production) => (p.durable_objects.bindings = p.durable_objects.bindings.filter((binding) => binding.name !== 'CLOUDFLARE_API')),
      'lacks durable_objects.bindings CLOUDFLARE_API',
    ],
    ['the database', (p: Production) => (p.d1_databases = []), 'lacks d1_databases DB'],
    ['a queue producer', (p: Production) => p.queues.producers?.shift(), 'lacks queues.producers NOTIFICATIONS'],
    ['a dead-letter queue', (p: Production) => delete p.queues.consumers![0]!.dead_letter_queue, 'the queue sitehost-notifications needs dead_letter_queue = "sitehost-notifications-dlq"'],
    [
      "a dead-letter queue's consumer",
      (p: Production) => (p.queues.consumers = p.queues.consumers!.filter((consumer) => consumer.queue !== 'sitehost-webhooks-dlq')),
      'nothing consumes the dead-letter queue sitehost-webhooks-dlq',
    ],
    ['local purges', (p: Production) => ((p.vars as Record<string, unknown>).EDGE_PURGE = 'local'), 'The setting EDGE_PURGE is "local"; it must be "cloudflare"'],
    [
      "the certificate consumer's retries",
      (p: Production) => (p.queues.consumers!.find((consumer) => consumer.queue === 'sitehost-certificates')!.max_retries = 3),
      "CERT_JOB_MAX_RETRIES is 5; it must be equal to the certificate queue consumer's max_retries (3)",
    ],
    [
      // Proof values are public in DNS: keyed by the token key, they would be an offline oracle against it.
      'DOMAIN_PROOF_SECRET among the required secrets',
      (p: Production) => (p.secrets = { required: (p.secrets?.required ?? []).filter((name) => name !== 'DOMAIN_PROOF_SECRET') }),
      'The setting DOMAIN_PROOF_SECRET is not set; it must be a random secret of at least 32 characters, other than AUTH_SECRET',
    ],
  ])('fails without %s', (_, change, problem) => {
    expect(checkProduction(withProduction(change)).problems).toEqual(expect.arrayContaining([expect.stringContaining(problem)]));
  });

  it('npm run deploy:check bundles the production Worker offline and lists the placeholders', () => {
    const checked = spawnSync(process.execPath, ['scripts/deploy-check.mjs'], {
      cwd: repo,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(checked.stderr).not.toContain('production:');
    expect(checked.status).toBe(0);
    expect(checked.stdout).toMatch(/bundle: \d+ module\(s\), .* gzip \(limit 3 MB\)/);
    expect(checked.stdout).toContain('production: every var and binding repeated');
    expect(checked.stdout).toContain('vars.API_HOSTNAMES = "<api-hostname>"');
  });
});
