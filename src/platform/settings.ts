/**
 * The Worker's settings: wrangler.toml's vars (and `--var` or dashboard overrides), which arrive
 * as strings, parsed and checked once into typed values. A bad value is refused with its name
 * rather than read as `NaN`, which would quietly switch a limit off.
 *
 * No runtime imports but its siblings': `npm start` (scripts/start.mjs) loads this file under Node to refuse a bad
 * setting before the service starts (its siblings setting-values.ts, analytics-settings.ts and protection-settings.ts import only each other).
 */
import { type AnalyticsSettings, type AnalyticsVars, analyticsSettings } from './analytics-settings.ts';
import { type ProtectionSettings, type ProtectionVars, protectionSettings } from './protection-settings.ts';
import { InvalidSetting, wholeNumber } from './setting-values.ts';

export { InvalidSetting };

/** The vars this module reads, as wrangler passes them (protected sites': ./protection-settings.ts). */
export interface SettingVars extends AnalyticsVars, ProtectionVars {
  API_HOSTNAMES?: unknown;
  MAX_FILES?: unknown;
  MAX_TOTAL_BYTES?: unknown;
  MAX_FILE_BYTES?: unknown;
  CERT_RETRY_BASE_SECONDS?: unknown;
  CERT_JOB_MAX_RETRIES?: unknown;
  RETIRED_DEPLOYMENT_GRACE_SECONDS?: unknown;
  ORPHAN_SWEEP_GRACE_SECONDS?: unknown;
  EVENTS_RETENTION_DAYS?: unknown;
  CONFIGURATION_CHANGES_RETENTION_DAYS?: unknown;
  EDGE_PURGE?: unknown;
  EDGE_CACHE_HOST?: unknown;
  EDGE_LOCAL_CACHES?: unknown;
  EDGE_PURGE_URLS_PER_REQUEST?: unknown;
  EDGE_PURGE_URLS_PER_SECOND?: unknown;
  EDGE_PURGE_WAIT_MS?: unknown;
  CLOUDFLARE_ZONE_ID?: unknown;
  CLOUDFLARE_API_REQUESTS?: unknown;
  CLOUDFLARE_API_WINDOW_SECONDS?: unknown;
  CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES?: unknown;
  DEPLOYMENTS_KEPT?: unknown;
  DEPLOYMENTS_KEPT_DAYS?: unknown;
  PREVIEW_HOSTNAME?: unknown;
  API_REQUESTS_PER_MINUTE?: unknown;
  ANONYMOUS_REQUESTS_PER_MINUTE?: unknown;
  DOMAIN_PROOF?: unknown;
  DNS_RESOLVER_URL?: unknown;
  SITES_PARENT_DOMAIN?: unknown;
  /** Secrets: the key of proof values (src/domains/proof-record.ts), and the key that signs tokens, which must not be it. */
  DOMAIN_PROOF_SECRET?: unknown;
  AUTH_SECRET?: unknown;
  MAX_UNFINISHED_DEPLOYMENTS?: unknown;
  MAX_SITES_PER_USER?: unknown;
  MAX_USER_BYTES?: unknown;
  DEPLOYS_PER_HOUR?: unknown;
  API_TOKEN_MAX_DAYS?: unknown;
  API_TOKENS_PER_USER?: unknown;
  API_TOKEN_CHECK_SECONDS?: unknown;
  GITHUB_OIDC_ISSUER?: unknown;
  OIDC_AUDIENCE?: unknown;
  OIDC_EXCHANGES_PER_SITE_HOUR?: unknown; OIDC_ISSUER_RETRY_SECONDS?: unknown;
}

export interface Settings {
  /** Hosts that reach the API; every other Host is a hosted site. Lower case. */
  apiHostnames: readonly string[];
  /** A deploy's limits (and a single file's, for `PUT .../files/<path>`). */
  maxFiles: number;
  maxTotalBytes: number;
  maxFileBytes: number;
  /** First retry delay of a failed certificate job; it doubles with each further retry. */
  certRetryBaseSeconds: number;
  /** The certificate queue consumer's `max_retries`: the attempt after which a job has failed. */
  certJobMaxRetries: number;
  /** How long a replaced deployment's objects stay for reads in flight. */
  retiredDeploymentGraceSeconds: number;
  /** How old an object no deployment or unfinished upload holds must be before a sweep deletes it: older than any deploy in flight. */
  orphanSweepGraceSeconds: number;
  /** Days of event history kept for replay. */
  eventsRetentionDays: number;
  /** Days an unpublish stays in the configurations feed; a cursor older than a forgotten one answers 410. */
  configurationChangesRetentionDays: number;
  /** How a change reaches every location's cache (docs/serving.md). */
  edge: EdgeSettings;
  /** The budget every call to Cloudflare's API shares (docs/serving.md). */
  cloudflareApi: CloudflareApiSettings;
  /** A site keeps its newest this many deployments, */
  deploymentsKept: number;
  /** and any younger than this many days (the live one always). */
  deploymentsKeptDays: number;
  /** Every kept deployment is served at `<id>.<previewHostname>`. Lower case. */
  previewHostname: string;
  /** The API's rate limits per minute: with a valid token per user, else per client address. */
  apiRequestsPerMinute: number;
  anonymousRequestsPerMinute: number;
  /** Who may claim a domain (docs/design.md, "Domains"). */
  domains: DomainSettings;
  /** A site's incremental deploys still uploading, at most. */
  maxUnfinishedDeployments: number;
  /** Each user's quotas (src/quotas/). */
  quotas: UserQuotas;
  /** Service-issued API tokens (src/auth/api-tokens.ts). */
  apiTokens: ApiTokenSettings;
  githubOidc: GithubOidcSettings;
  /** Traffic counted on the serving path (docs/analytics.md). */
  analytics: AnalyticsSettings;
  protection: ProtectionSettings;
}

export interface GithubOidcSettings {
  /** The issuer of GitHub Actions' ID tokens, without a trailing slash. */
  issuer: string;
  /** The `aud` an ID token must name; null: the API's origin, as the request reached it. */
  audience: string | null;
  /** Exchanges naming a site within a clock hour, at most (429 past it); how long after a failure of the issuer exchanges answer 503 without asking it. */
  exchangesPerSiteHour: number; issuerRetrySeconds: number;
}

export interface ApiTokenSettings {
  /** The longest a new token may live, in days. */
  maxDays: number;
  /** Unexpired tokens a user holds, at most. */
  perUser: number;
  /** How long a location trusts its last check of a token (or of a user's sign-out): the revocation delay. */
  checkSeconds: number;
}

export interface UserQuotas {
  /** Sites a user owns, at most. */
  maxSites: number;
  /** Bytes stored for a user's sites and their kept deployments, at most. */
  maxBytes: number;
  /** Deploys a user begins within any hour, at most. */
  deploysPerHour: number;
}

export interface DomainSettings {
  /** `dns`: a domain is claimed only once its DNS shows the claimant's TXT record; `off`: the first deploy claims it. */
  proof: 'dns' | 'off';
  /** A DNS-over-HTTPS resolver's JSON API (`?name=…&type=TXT`, `accept: application/dns-json`). */
  resolverUrl: string;
  /** The service's own parent domain: `<name>.<parentDomain>` is first come, first served. Lower case; null for none. */
  parentDomain: string | null;
  /** The key of proof values: the secret DOMAIN_PROOF_SECRET; null when it is not set (then DOMAIN_PROOF must be `off`). */
  proofKey: string | null;
}

export interface EdgeSettings {
  /** `cloudflare`: the zone's purge-by-URL API; `local`: deletes from this service's own caches. */
  purge: 'local' | 'cloudflare';
  /** The host of every location-cache key; with `cloudflare` a hostname of `CLOUDFLARE_ZONE_ID`'s zone. */
  cacheHost: string;
  /** Named caches a `local` purge clears besides the default one: locations emulated by tests and benches. */
  localCaches: readonly string[];
  /** The most URLs one purge request carries: 100 on every plan, 500 on Enterprise. */
  purgeUrlsPerRequest: number;
  /** The plan's purge-by-URL rate: 800 URLs/s on Free, 1,500 on Pro and Business, 3,000 on Enterprise. */
  purgeUrlsPerSecond: number;
  /** How long a change waits for Cloudflare to accept its purge before it answers with the purge pending. */
  purgeWaitMs: number;
}

/** Cloudflare's global API limit per token, and the share of it kept for certificate calls. */
export interface CloudflareApiSettings {
  /** Requests allowed per window (Cloudflare: 1,200 per five minutes; more is refused for the next five minutes). */
  requestsPerWindow: number;
  windowSeconds: number;
  /** Requests per window purges leave to the certificate calls: purges use at most the rest. */
  reservedForCertificates: number;
}

/** Revocation must reach every location within a minute (docs/api.md, "Tokens"). */
const maxTokenCheckSeconds = 60;

function apiTokenSettings(vars: SettingVars): ApiTokenSettings {
  const checkSeconds = wholeNumber(vars, 'API_TOKEN_CHECK_SECONDS', 0);
  if (checkSeconds > maxTokenCheckSeconds) {
    throw new InvalidSetting('API_TOKEN_CHECK_SECONDS', vars.API_TOKEN_CHECK_SECONDS, `at most ${maxTokenCheckSeconds}: a revoked token must be refused everywhere within a minute`);
  }
  return { maxDays: wholeNumber(vars, 'API_TOKEN_MAX_DAYS', 1), perUser: wholeNumber(vars, 'API_TOKENS_PER_USER', 1), checkSeconds };
}

/** https, or http on loopback: a laptop or a test runs its own issuer. */
function githubOidcSettings(vars: SettingVars): GithubOidcSettings {
  const value = typeof vars.GITHUB_OIDC_ISSUER === 'string' ? vars.GITHUB_OIDC_ISSUER.trim() : '';
  const url = URL.canParse(value) ? new URL(value) : null;
  const loopback = url !== null && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.hash) {
    throw new InvalidSetting('GITHUB_OIDC_ISSUER', vars.GITHUB_OIDC_ISSUER, 'an https URL (http only on loopback), e.g. https://token.actions.githubusercontent.com');
  }
  const audience = typeof vars.OIDC_AUDIENCE === 'string' ? vars.OIDC_AUDIENCE.trim() : '';
  const limits = { exchangesPerSiteHour: wholeNumber(vars, 'OIDC_EXCHANGES_PER_SITE_HOUR', 1), issuerRetrySeconds: wholeNumber(vars, 'OIDC_ISSUER_RETRY_SECONDS', 0) };
  return { issuer: value.replace(/\/+$/, ''), audience: audience === '' ? null : audience, ...limits };
}

/** The most URLs Cloudflare takes in one purge request, on any plan. */
const maxUrlsPerPurge = 500;

function edgeSettings(vars: SettingVars): EdgeSettings {
  const purge = vars.EDGE_PURGE;
  if (purge !== 'local' && purge !== 'cloudflare') throw new InvalidSetting('EDGE_PURGE', purge, '"local" or "cloudflare"');
  const [cacheHost, ...more] = hostnameList(vars, 'EDGE_CACHE_HOST');
  if (more.length > 0) throw new InvalidSetting('EDGE_CACHE_HOST', vars.EDGE_CACHE_HOST, 'one hostname');
  if (purge === 'cloudflare' && (typeof vars.CLOUDFLARE_ZONE_ID !== 'string' || vars.CLOUDFLARE_ZONE_ID.trim() === '')) {
    throw new InvalidSetting('CLOUDFLARE_ZONE_ID', vars.CLOUDFLARE_ZONE_ID, 'the zone id of EDGE_CACHE_HOST when EDGE_PURGE is "cloudflare"');
  }
  const names = vars.EDGE_LOCAL_CACHES ?? '';
  if (typeof names !== 'string') throw new InvalidSetting('EDGE_LOCAL_CACHES', names, 'comma-separated cache names');
  const purgeUrlsPerRequest = wholeNumber(vars, 'EDGE_PURGE_URLS_PER_REQUEST', 1);
  if (purgeUrlsPerRequest > maxUrlsPerPurge) {
    throw new InvalidSetting('EDGE_PURGE_URLS_PER_REQUEST', vars.EDGE_PURGE_URLS_PER_REQUEST, `at most ${maxUrlsPerPurge} (Enterprise; 100 on other plans)`);
  }
  return {
    purge,
    cacheHost: cacheHost!,
    localCaches: names.split(',').map((name) => name.trim()).filter(Boolean),
    purgeUrlsPerRequest,
    purgeUrlsPerSecond: wholeNumber(vars, 'EDGE_PURGE_URLS_PER_SECOND', 1),
    purgeWaitMs: wholeNumber(vars, 'EDGE_PURGE_WAIT_MS', 0),
  };
}

function cloudflareApiSettings(vars: SettingVars): CloudflareApiSettings {
  const requestsPerWindow = wholeNumber(vars, 'CLOUDFLARE_API_REQUESTS', 1);
  const reservedForCertificates = wholeNumber(vars, 'CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES', 0);
  if (reservedForCertificates >= requestsPerWindow) {
    throw new InvalidSetting('CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES', vars.CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES, `less than CLOUDFLARE_API_REQUESTS (${requestsPerWindow}), so that purges have a share`);
  }
  return { requestsPerWindow, windowSeconds: wholeNumber(vars, 'CLOUDFLARE_API_WINDOW_SECONDS', 1), reservedForCertificates };
}

function hostnameList(vars: SettingVars, setting: keyof SettingVars): string[] {
  const value = vars[setting];
  if (typeof value !== 'string') throw new InvalidSetting(setting, value, 'comma-separated hostnames');
  const names = value.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0 || names.some((name) => !URL.canParse(`http://${name}/`))) {
    throw new InvalidSetting(setting, value, 'comma-separated hostnames, at least one');
  }
  return names;
}

function hostname(vars: SettingVars, setting: keyof SettingVars): string {
  const value = vars[setting];
  const name = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!name || name.includes(',') || !URL.canParse(`http://x.${name}/`) || new URL(`http://x.${name}/`).hostname !== `x.${name}`) {
    throw new InvalidSetting(setting, value, 'one hostname');
  }
  return name;
}

/**
 * The shortest DOMAIN_PROOF_SECRET: proof values are published in DNS for user ids anyone can
 * guess, so each is a known HMAC of its key, which must not be found by searching offline.
 */
export const minProofSecretLength = 32;

const proofSecretRule = `a random secret of at least ${minProofSecretLength} characters, other than AUTH_SECRET (docs/operating.md)`;

/**
 * DOMAIN_PROOF_SECRET, or null when it is not set. Never AUTH_SECRET: the token key would then
 * be searchable offline from public DNS records, and it signs every token, admin ones included.
 */
function proofSecret(vars: SettingVars): string | null {
  const secret = vars.DOMAIN_PROOF_SECRET;
  if (secret === undefined || secret === '') return null;
  if (typeof secret !== 'string' || [...secret].length < minProofSecretLength) {
    const shown = typeof secret === 'string' ? `${[...secret].length} characters long` : 'not a string';
    throw new InvalidSetting('DOMAIN_PROOF_SECRET', undefined, proofSecretRule, shown);
  }
  if (secret === vars.AUTH_SECRET) throw new InvalidSetting('DOMAIN_PROOF_SECRET', undefined, proofSecretRule, 'the same as AUTH_SECRET');
  return secret;
}

function domainSettings(vars: SettingVars): DomainSettings {
  const proof = vars.DOMAIN_PROOF;
  if (proof !== 'dns' && proof !== 'off') throw new InvalidSetting('DOMAIN_PROOF', proof, '"dns" or "off"');
  const resolver = vars.DNS_RESOLVER_URL;
  const resolverUrl = typeof resolver === 'string' && URL.canParse(resolver.trim()) ? new URL(resolver.trim()) : undefined;
  if (!resolverUrl || !['https:', 'http:'].includes(resolverUrl.protocol)) {
    throw new InvalidSetting('DNS_RESOLVER_URL', resolver, 'the http(s) URL of a DNS-over-HTTPS JSON API');
  }
  const proofKey = proofSecret(vars);
  if (proof === 'dns' && proofKey === null) {
    throw new InvalidSetting('DOMAIN_PROOF_SECRET', undefined, `${proofSecretRule} when DOMAIN_PROOF is "dns"`, 'not set');
  }
  const parent = typeof vars.SITES_PARENT_DOMAIN === 'string' ? vars.SITES_PARENT_DOMAIN.trim() : vars.SITES_PARENT_DOMAIN;
  return { proof, resolverUrl: resolverUrl.href, parentDomain: parent === '' ? null : hostname(vars, 'SITES_PARENT_DOMAIN'), proofKey };
}

export function parseSettings(vars: SettingVars): Settings {
  refuseDeploymentMistakes(vars);
  return {
    apiHostnames: hostnameList(vars, 'API_HOSTNAMES'),
    maxFiles: wholeNumber(vars, 'MAX_FILES', 1),
    maxTotalBytes: wholeNumber(vars, 'MAX_TOTAL_BYTES', 1),
    maxFileBytes: wholeNumber(vars, 'MAX_FILE_BYTES', 1),
    // 0 (retry at once) is for tests on this machine: refuseDeploymentMistakes keeps it off a public service.
    certRetryBaseSeconds: wholeNumber(vars, 'CERT_RETRY_BASE_SECONDS', 0),
    certJobMaxRetries: wholeNumber(vars, 'CERT_JOB_MAX_RETRIES', 0),
    retiredDeploymentGraceSeconds: wholeNumber(vars, 'RETIRED_DEPLOYMENT_GRACE_SECONDS', 0),
    orphanSweepGraceSeconds: wholeNumber(vars, 'ORPHAN_SWEEP_GRACE_SECONDS', 0),
    eventsRetentionDays: wholeNumber(vars, 'EVENTS_RETENTION_DAYS', 1),
    configurationChangesRetentionDays: wholeNumber(vars, 'CONFIGURATION_CHANGES_RETENTION_DAYS', 1),
    edge: edgeSettings(vars),
    cloudflareApi: cloudflareApiSettings(vars),
    deploymentsKept: wholeNumber(vars, 'DEPLOYMENTS_KEPT', 1),
    deploymentsKeptDays: wholeNumber(vars, 'DEPLOYMENTS_KEPT_DAYS', 0),
    previewHostname: hostname(vars, 'PREVIEW_HOSTNAME'),
    apiRequestsPerMinute: wholeNumber(vars, 'API_REQUESTS_PER_MINUTE', 1),
    anonymousRequestsPerMinute: wholeNumber(vars, 'ANONYMOUS_REQUESTS_PER_MINUTE', 1),
    domains: domainSettings(vars),
    maxUnfinishedDeployments: wholeNumber(vars, 'MAX_UNFINISHED_DEPLOYMENTS', 1),
    quotas: {
      maxSites: wholeNumber(vars, 'MAX_SITES_PER_USER', 1),
      maxBytes: wholeNumber(vars, 'MAX_USER_BYTES', 1),
      deploysPerHour: wholeNumber(vars, 'DEPLOYS_PER_HOUR', 1),
    },
    apiTokens: apiTokenSettings(vars),
    githubOidc: githubOidcSettings(vars),
    analytics: analyticsSettings(vars),
    protection: protectionSettings(vars),
  };
}

/** By the vars object: the runtime hands the same `env` to every request of an isolate. */
const parsed = new WeakMap<object, Settings>();

/** The settings of `env`, parsed on first use; throws `InvalidSetting` for a bad value. */
export function settingsOf(env: SettingVars): Settings {
  let settings = parsed.get(env);
  if (!settings) {
    settings = parseSettings(env);
    parsed.set(env, settings);
  }
  return settings;
}

/**
 * wrangler.toml's placeholder convention: a value in angle brackets (`<api-hostname>`) is the
 * operator's to fill in. No real value of a setting holds `<` or `>` (hostnames, zone ids), so
 * any such text is refused rather than read as a name that resolves nowhere.
 */
export const placeholder = /<[^<>]*>/;

/** The settings [env.production] ships as placeholders; `npm run deploy:check` finds the others (route patterns, database ids). */
const placeholderSettings = ['API_HOSTNAMES', 'PREVIEW_HOSTNAME', 'EDGE_CACHE_HOST', 'CLOUDFLARE_ZONE_ID'] as const satisfies readonly (keyof SettingVars)[];

/**
 * A hostname no public service answers at: `localhost` and `*.localhost`, 127.0.0.0/8 and [::1],
 * and names under the special-use top-level domains `test`, `example` and `invalid` (RFC 6761),
 * which resolve nowhere on the internet: test set-ups of a single machine.
 */
function isPrivateName(name: string): boolean {
  const { hostname } = new URL(`http://${name}/`);
  if (hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname)) return true;
  const topLevel = hostname.slice(hostname.lastIndexOf('.') + 1);
  return ['localhost', 'test', 'example', 'invalid'].includes(topLevel);
}

/**
 * Mistakes of a whole configuration rather than of one value: a placeholder left in, and on a
 * public service `EDGE_PURGE=local`, where a change would be purged from this machine's caches
 * only and every other location would serve the replaced site for the record's max-age, and
 * `CERT_RETRY_BASE_SECONDS=0`, the tests' setting, which retries failed certificate jobs at once.
 */
function refuseDeploymentMistakes(vars: SettingVars): void {
  for (const setting of placeholderSettings) {
    const value = vars[setting];
    if (typeof value === 'string' && placeholder.test(value)) {
      throw new InvalidSetting(setting, value, "your own value in place of wrangler.toml's placeholder in angle brackets (docs/operating.md)");
    }
  }
  const publicName = hostnameList(vars, 'API_HOSTNAMES').find((name) => !isPrivateName(name));
  if (publicName === undefined) return;
  if (vars.EDGE_PURGE === 'local') {
    throw new InvalidSetting(
      'EDGE_PURGE',
      vars.EDGE_PURGE,
      `"cloudflare" when API_HOSTNAMES has a public hostname (${publicName}): "local" purges only this machine's caches`,
    );
  }
  if (wholeNumber(vars, 'CERT_RETRY_BASE_SECONDS', 0) === 0) {
    throw new InvalidSetting(
      'CERT_RETRY_BASE_SECONDS',
      vars.CERT_RETRY_BASE_SECONDS,
      `at least 1 when API_HOSTNAMES has a public hostname (${publicName}): 0 retries a failed certificate job at once, hammering the CA`,
    );
  }
}
