import { describe, expect, it } from 'vitest';
import { checkCertificateRetries, checkRateLimits } from '../../src/platform/binding-checks';
import { InvalidSetting, parseSettings } from '../../src/platform/settings';

const valid = {
  API_HOSTNAMES: 'localhost, API.sitehost.localhost',
  MAX_FILES: '20000',
  MAX_TOTAL_BYTES: '104857600',
  MAX_FILE_BYTES: '26214400',
  CERT_RETRY_BASE_SECONDS: '60',
  CERT_JOB_MAX_RETRIES: '5',
  RETIRED_DEPLOYMENT_GRACE_SECONDS: '0',
  ORPHAN_SWEEP_GRACE_SECONDS: '3600',
  EVENTS_RETENTION_DAYS: '7',
  CONFIGURATION_CHANGES_RETENTION_DAYS: '7',
  DEPLOYMENTS_KEPT: '20',
  DEPLOYMENTS_KEPT_DAYS: '30',
  PREVIEW_HOSTNAME: 'Preview.localhost',
  EDGE_PURGE: 'local',
  EDGE_CACHE_HOST: 'sitehost.cache',
  EDGE_LOCAL_CACHES: 'a, b',
  API_REQUESTS_PER_MINUTE: '1200',
  ANONYMOUS_REQUESTS_PER_MINUTE: '300',
  DOMAIN_PROOF: 'dns',
  DNS_RESOLVER_URL: 'https://cloudflare-dns.com/dns-query',
  SITES_PARENT_DOMAIN: ' Sitehost.App ',
  DOMAIN_PROOF_SECRET: 'proof-secret-of-thirty-two-chars',
  MAX_UNFINISHED_DEPLOYMENTS: '10',
  MAX_SITES_PER_USER: '100',
  MAX_USER_BYTES: '10737418240',
  DEPLOYS_PER_HOUR: '200',
  EDGE_PURGE_URLS_PER_REQUEST: '100',
  EDGE_PURGE_URLS_PER_SECOND: '800',
  EDGE_PURGE_WAIT_MS: '2000',
  CLOUDFLARE_API_REQUESTS: '1200',
  CLOUDFLARE_API_WINDOW_SECONDS: '300',
  CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES: '400',
  API_TOKEN_MAX_DAYS: '365',
  API_TOKENS_PER_USER: '50',
  API_TOKEN_CHECK_SECONDS: '30',
  GITHUB_OIDC_ISSUER: 'https://token.actions.githubusercontent.com/',
  OIDC_AUDIENCE: '',
  NEW_SITE_PREVIEWS: 'members',
  SHARE_LINK_MAX_SECONDS: '2592000',
  SIGN_IN_ATTEMPTS_PER_MINUTE: '10',
  SITE_PASSWORD_MIN_LENGTH: '8',
  MAX_CREDENTIAL_HEADER_BYTES: '8192',
  OIDC_EXCHANGES_PER_SITE_HOUR: '60',
  OIDC_ISSUER_RETRY_SECONDS: '30',
  ANALYTICS: 'on',
  ANALYTICS_FLUSH_SECONDS: '10',
  ANALYTICS_TIMED_SENDS: 'on',
  ANALYTICS_VALUES_PER_SITE: '100',
  ANALYTICS_VALUES_TOTAL: '10000',
  ANALYTICS_TOP_STORED: '100',
  ANALYTICS_HOURLY_RETENTION_DAYS: '31',
  ANALYTICS_DAILY_RETENTION_DAYS: '400',
};

describe('settings', () => {
  it('parses every var once into typed values', () => {
    expect(parseSettings(valid)).toEqual({
      apiHostnames: ['localhost', 'api.sitehost.localhost'],
      maxFiles: 20000,
      maxTotalBytes: 104857600,
      maxFileBytes: 26214400,
      certRetryBaseSeconds: 60,
      certJobMaxRetries: 5,
      retiredDeploymentGraceSeconds: 0,
      orphanSweepGraceSeconds: 3600,
      eventsRetentionDays: 7,
      configurationChangesRetentionDays: 7,
      deploymentsKept: 20,
      deploymentsKeptDays: 30,
      previewHostname: 'preview.localhost',
      apiRequestsPerMinute: 1200,
      anonymousRequestsPerMinute: 300,
      domains: { proof: 'dns', resolverUrl: 'https://cloudflare-dns.com/dns-query', parentDomain: 'sitehost.app', proofKey: 'proof-secret-of-thirty-two-chars' },
      maxUnfinishedDeployments: 10,
      quotas: { maxSites: 100, maxBytes: 10737418240, deploysPerHour: 200 },
      edge: { purge: 'local', cacheHost: 'sitehost.cache', localCaches: ['a', 'b'], purgeUrlsPerRequest: 100, purgeUrlsPerSecond: 800, purgeWaitMs: 2000 },
      cloudflareApi: { requestsPerWindow: 1200, windowSeconds: 300, reservedForCertificates: 400 },
      apiTokens: { maxDays: 365, perUser: 50, checkSeconds: 30 },
      analytics: { counting: true, flushSeconds: 10, timedSends: true, valuesPerSite: 100, valuesTotal: 10000, topStored: 100, hourlyRetentionDays: 31, dailyRetentionDays: 400 },
      protection: { newSitePreviews: 'members', shareLinkMaxSeconds: 2592000, signInAttemptsPerMinute: 10, passwordMinLength: 8, maxCredentialHeaderBytes: 8192 },
      githubOidc: { issuer: 'https://token.actions.githubusercontent.com', audience: null, exchangesPerSiteHour: 60, issuerRetrySeconds: 30 },
    });
  });

  it('takes an http GitHub OIDC issuer on loopback only (a local issuer), and an audience when set', () => {
    for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000', 'http://[::1]:9000']) {
      expect(parseSettings({ ...valid, GITHUB_OIDC_ISSUER: issuer }).githubOidc.issuer).toBe(issuer);
    }
    expect(parseSettings({ ...valid, OIDC_AUDIENCE: ' https://api.example.net ' }).githubOidc.audience).toBe('https://api.example.net');
  });

  it('keys proof values with DOMAIN_PROOF_SECRET; no parent domain when SITES_PARENT_DOMAIN is empty', () => {
    const { domains } = parseSettings({ ...valid, AUTH_SECRET: 'auth-secret', SITES_PARENT_DOMAIN: '' });
    expect(domains).toMatchObject({ proofKey: 'proof-secret-of-thirty-two-chars', parentDomain: null });
    // With DOMAIN_PROOF=off no proof is checked, and a service without the secret runs.
    expect(parseSettings({ ...valid, DOMAIN_PROOF: 'off', DOMAIN_PROOF_SECRET: undefined }).domains.proofKey).toBeNull();
  });

  it('never keys proof values with AUTH_SECRET, the token key: DOMAIN_PROOF=dns needs its own long secret, never written out', () => {
    const authSecret = 'a-token-signing-key-of-forty-characters!';
    const refusals = [
      [undefined, 'is not set'],
      ['', 'is not set'],
      ['short-secret', 'is 12 characters long'],
      [authSecret, 'is the same as AUTH_SECRET'],
    ] as const;
    for (const [secret, shown] of refusals) {
      const attempt = () => parseSettings({ ...valid, AUTH_SECRET: authSecret, DOMAIN_PROOF_SECRET: secret });
      expect(attempt).toThrow(InvalidSetting);
      expect(attempt).toThrow(`The setting DOMAIN_PROOF_SECRET ${shown}; it must be a random secret of at least 32 characters, other than AUTH_SECRET`);
      try {
        attempt();
      } catch (error) {
        if (secret) expect((error as Error).message).not.toContain(secret);
      }
    }
    // A short or reused secret is refused with DOMAIN_PROOF=off too: it would key the values the service shows.
    expect(() => parseSettings({ ...valid, DOMAIN_PROOF: 'off', DOMAIN_PROOF_SECRET: 'short-secret' })).toThrow(InvalidSetting);
  });

  it.each([
    ['MAX_TOTAL_BYTES', '100MB'],
    ['MAX_TOTAL_BYTES', ''],
    ['MAX_FILES', '0'],
    ['MAX_FILES', '-5'],
    ['MAX_FILE_BYTES', '1e6'],
    ['MAX_FILE_BYTES', '2.5'],
    ['CERT_RETRY_BASE_SECONDS', 'sixty'],
    ['EVENTS_RETENTION_DAYS', undefined],
    ['ORPHAN_SWEEP_GRACE_SECONDS', 'an hour'],
    ['ORPHAN_SWEEP_GRACE_SECONDS', '-1'],
    ['API_HOSTNAMES', ' , '],
    ['API_HOSTNAMES', 'local host'],
    ['DEPLOYMENTS_KEPT', '0'],
    ['EDGE_PURGE', 'zone'],
    ['EDGE_CACHE_HOST', 'a.example, b.example'],
    ['DEPLOYMENTS_KEPT_DAYS', 'a month'],
    ['PREVIEW_HOSTNAME', 'preview.localhost:8787'],
    ['PREVIEW_HOSTNAME', 'a.example, b.example'],
    ['API_REQUESTS_PER_MINUTE', '0'],
    ['ANONYMOUS_REQUESTS_PER_MINUTE', '5/s'],
    ['DOMAIN_PROOF', 'on'],
    ['DOMAIN_PROOF', undefined],
    ['DNS_RESOLVER_URL', 'cloudflare-dns.com/dns-query'],
    ['DNS_RESOLVER_URL', 'ftp://resolver.example/dns-query'],
    ['SITES_PARENT_DOMAIN', 'sitehost.app/x'],
    ['SITES_PARENT_DOMAIN', 'a.example, b.example'],
    ['DOMAIN_PROOF_SECRET', ''],
    ['DOMAIN_PROOF_SECRET', 'thirty-one-characters-not-32!!!'],
    ['MAX_UNFINISHED_DEPLOYMENTS', '0'],
    ['MAX_SITES_PER_USER', 'unlimited'],
    ['MAX_USER_BYTES', '10 GiB'],
    ['DEPLOYS_PER_HOUR', '0'],
    ['EDGE_PURGE_URLS_PER_REQUEST', '0'],
    ['EDGE_PURGE_URLS_PER_REQUEST', '501'],
    ['EDGE_PURGE_URLS_PER_SECOND', '0'],
    ['EDGE_PURGE_WAIT_MS', '2 s'],
    ['CLOUDFLARE_API_REQUESTS', '0'],
    ['CLOUDFLARE_API_WINDOW_SECONDS', undefined],
    ['CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES', '1200'],
    ['API_TOKEN_MAX_DAYS', '0'],
    ['API_TOKENS_PER_USER', '0'],
    ['NEW_SITE_PREVIEWS', 'private'],
    ['SHARE_LINK_MAX_SECONDS', '30d'],
    ['SIGN_IN_ATTEMPTS_PER_MINUTE', '0'],
    ['MAX_CREDENTIAL_HEADER_BYTES', '100'],
    // A revoked token must be refused everywhere within a minute.
    ['API_TOKEN_CHECK_SECONDS', '61'],
    // A token's keys fetched in clear text could be anyone's: http only on loopback.
    ['GITHUB_OIDC_ISSUER', 'http://token.actions.githubusercontent.com'],
    ['GITHUB_OIDC_ISSUER', 'not a url'],
    ['GITHUB_OIDC_ISSUER', undefined],
  ])('refuses %s = %j, naming it', (setting, value) => {
    const attempt = () => parseSettings({ ...valid, [setting]: value });
    expect(attempt).toThrow(InvalidSetting);
    expect(attempt).toThrow(`The setting ${setting} is`);
  });

  it.each([
    ['API_HOSTNAMES', '<api-hostname>'],
    ['API_HOSTNAMES', 'localhost, <api-hostname>'],
    ['PREVIEW_HOSTNAME', '<preview-hostname>'],
    ['EDGE_CACHE_HOST', 'cache.<zone-name>'],
    ['CLOUDFLARE_ZONE_ID', '<zone-id>'],
  ])("refuses %s = %j: wrangler.toml's placeholder left in", (setting, value) => {
    const attempt = () => parseSettings({ ...valid, [setting]: value });
    expect(attempt).toThrow(InvalidSetting);
    expect(attempt).toThrow(`The setting ${setting} is ${JSON.stringify(value)}; it must be your own value in place of wrangler.toml's placeholder`);
  });

  it.each(['api.example.com', 'localhost, api.example.com', '127.example.com', '10.0.0.5', '[2001:db8::1]', 'localhost.example.com', 'test.example.com'])(
    'refuses EDGE_PURGE=local with API_HOSTNAMES = %j: a public service must purge every location',
    (names) => {
      const attempt = () => parseSettings({ ...valid, API_HOSTNAMES: names, EDGE_PURGE: 'local' });
      expect(attempt).toThrow(InvalidSetting);
      expect(attempt).toThrow(/^The setting EDGE_PURGE is "local"; it must be "cloudflare" when API_HOSTNAMES has a public hostname \(/);
      expect(() => parseSettings({ ...valid, API_HOSTNAMES: names, EDGE_PURGE: 'cloudflare', CLOUDFLARE_ZONE_ID: 'zone-1' })).not.toThrow();
    },
  );

  it.each(['localhost', 'LOCALHOST', 'sitehost.localhost', '127.0.0.1', '127.1.2.3', '127.1', '[::1]', 'localhost, 127.0.0.1, [::1]', 'api.sitehost.test', 'api.example', 'api.invalid'])(
    'accepts EDGE_PURGE=local with API_HOSTNAMES = %j: no public service answers there (RFC 6761)',
    (names) => {
      expect(parseSettings({ ...valid, API_HOSTNAMES: names, EDGE_PURGE: 'local' }).edge.purge).toBe('local');
    },
  );

  it('accepts CERT_RETRY_BASE_SECONDS=0, retrying at once, only where no public service answers (the tests\' setting)', () => {
    expect(parseSettings({ ...valid, API_HOSTNAMES: 'localhost, 127.0.0.1', CERT_RETRY_BASE_SECONDS: '0' }).certRetryBaseSeconds).toBe(0);
    const publicService = { ...valid, API_HOSTNAMES: 'localhost, api.example.com', EDGE_PURGE: 'cloudflare', CLOUDFLARE_ZONE_ID: 'zone-1' };
    const attempt = () => parseSettings({ ...publicService, CERT_RETRY_BASE_SECONDS: '0' });
    expect(attempt).toThrow(InvalidSetting);
    expect(attempt).toThrow(/^The setting CERT_RETRY_BASE_SECONDS is "0"; it must be at least 1 when API_HOSTNAMES has a public hostname \(api\.example\.com\)/);
    expect(parseSettings({ ...publicService, CERT_RETRY_BASE_SECONDS: '1' }).certRetryBaseSeconds).toBe(1);
  });

  it("requires CERT_JOB_MAX_RETRIES to equal the certificate queue's max_retries", () => {
    const settings = parseSettings(valid);
    expect(() => checkCertificateRetries(settings, 5)).not.toThrow();
    expect(() => checkCertificateRetries(settings, 3)).toThrow(/CERT_JOB_MAX_RETRIES .* max_retries \(3\)/);
    expect(() => checkCertificateRetries(settings, undefined)).toThrow(/not set/);
  });

  it("requires each rate limit setting to equal its binding's limit, counted per minute", () => {
    const settings = parseSettings(valid);
    const user = { name: 'USER_RATE_LIMITER', simple: { limit: 1200, period: 60 } };
    const address = { name: 'ADDRESS_RATE_LIMITER', simple: { limit: 300, period: 60 } };
    const signIn = { name: 'SIGN_IN_RATE_LIMITER', simple: { limit: 10, period: 60 } };
    expect(() => checkRateLimits(settings, [user, address, signIn])).not.toThrow();
    expect(() => checkRateLimits(settings, [user, { ...address, simple: { limit: 100, period: 60 } }, signIn])).toThrow(/ANONYMOUS_REQUESTS_PER_MINUTE .* ADDRESS_RATE_LIMITER.*limit 100/);
    expect(() => checkRateLimits(settings, [{ ...user, simple: { limit: 1200, period: 10 } }, address, signIn])).toThrow(/API_REQUESTS_PER_MINUTE .*period 10/);
    expect(() => checkRateLimits(settings, [address, signIn])).toThrow(/USER_RATE_LIMITER.*missing/);
    expect(() => checkRateLimits(settings, [user, address])).toThrow(/SIGN_IN_ATTEMPTS_PER_MINUTE .*SIGN_IN_RATE_LIMITER.*missing/);
  });
});

describe('a bad setting in a running Worker', () => {
  it('answers every request with a 500 problem naming the setting', async () => {
    const { env, createExecutionContext } = await import('cloudflare:test');
    const { default: worker } = await import('../../src/index');
    const response = await worker.fetch(
      new Request('http://localhost/v2/sites') as Request<unknown, IncomingRequestCfProperties>,
      { ...env, MAX_TOTAL_BYTES: '100 MB' },
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 500, setting: 'MAX_TOTAL_BYTES', detail: expect.stringContaining('MAX_TOTAL_BYTES') });
  });

  it.each([
    ['EDGE_PURGE', { API_HOSTNAMES: 'api.example.com', EDGE_PURGE: 'local' }, 'api.example.com'],
    ['PREVIEW_HOSTNAME', { PREVIEW_HOSTNAME: '<preview-hostname>' }, 'localhost'],
    // The token key is never the proof key: a Worker with DOMAIN_PROOF=dns and no DOMAIN_PROOF_SECRET serves nothing.
    ['DOMAIN_PROOF_SECRET', { DOMAIN_PROOF: 'dns', DOMAIN_PROOF_SECRET: undefined }, 'proven.example'],
  ])('answers a 500 naming %s for a configuration that cannot go public, on every host', async (setting, vars, host) => {
    const { env, createExecutionContext } = await import('cloudflare:test');
    const { default: worker } = await import('../../src/index');
    const response = await worker.fetch(
      new Request(`http://${host}/v2/sites`) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...vars },
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 500, setting, detail: expect.stringContaining(`The setting ${setting} is`) });
  });
});
