import type { CloudflareAccount } from '../cloudflare-api/account';
import type { SiteCoordinator } from '../coordinator/coordinator';
import type { EventLog } from '../events/event-log';
import type { WebhookReceiver } from '../events/webhook-receiver';
import type { WebhookDelivery } from '../events/webhooks';
import type { SiteTraffic } from '../traffic/site-traffic';
import type { VisitorSalt } from '../traffic/visitor-salt';

/** Bindings and vars of the Worker (see wrangler.toml). Vars arrive as strings. */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  SITES: DurableObjectNamespace<SiteCoordinator>;
  NOTIFICATIONS: Queue<unknown>;
  CERTIFICATES: Queue<unknown>;
  /** The event log behind GET /v2/events: one instance, `idFromName('events')`. */
  EVENTS: DurableObjectNamespace<EventLog>;
  WEBHOOKS: Queue<WebhookDelivery>;
  /** One per webhook receiver, `idFromName(url)`: its pending deliveries and their retries. */
  WEBHOOK_RECEIVERS: DurableObjectNamespace<WebhookReceiver>;
  /** The API's rate limits (src/api/rate-limit.ts): requests with a valid token, by user; the others, by client address. */
  USER_RATE_LIMITER: RateLimit;
  ADDRESS_RATE_LIMITER: RateLimit;
  /** Password sign-in attempts on protected sites' hosts, per client address (SIGN_IN_ATTEMPTS_PER_MINUTE). */
  SIGN_IN_RATE_LIMITER: RateLimit;
  /** Every call to Cloudflare's API, under one budget: one instance, `idFromName('account')`. */
  CLOUDFLARE_API: DurableObjectNamespace<CloudflareAccount>;
  /** Traffic analytics (docs/analytics.md): what isolates counted, one message per send; */
  TRAFFIC: Queue<unknown>;
  /** one object per domain keeping its site's traffic, `idFromName(domain)`; */
  SITE_TRAFFIC: DurableObjectNamespace<SiteTraffic>;
  /** and the day's visitor secret, in memory only: one instance, `idFromName('salt')`. */
  VISITOR_SALT: DurableObjectNamespace<VisitorSalt>;

  /** Comma-separated hostnames that reach the API; every other Host is a hosted site. */
  API_HOSTNAMES: string;
  /** HS256 secret for self-issued tokens (`npm run token`). */
  AUTH_SECRET?: string;
  /** `iss` of self-issued tokens. */
  TOKEN_ISSUER: string;
  /** Identity provider: JWKS endpoint and expected issuer of its RS256/ES256/EdDSA tokens. */
  AUTH_JWKS_URL?: string;
  AUTH_ISSUER?: string;
  /** `aud` every accepted token must carry. */
  AUTH_AUDIENCE: string;
  /** Public OpenID Connect client id of the dashboard's sign-in (with `AUTH_ISSUER`). */
  AUTH_CLIENT_ID?: string;
  MAX_FILES: string;
  MAX_TOTAL_BYTES: string;
  MAX_FILE_BYTES: string;
  /** `acme`, `cloudflare` or `off` (docs/certificates.md). */
  CERT_ISSUER: string;
  /** Secret: seals certificate and ACME account private keys at rest (AES-GCM). */
  CERT_ENCRYPTION_KEY?: string;
  /** First retry delay of a failed certificate job; it doubles with each further retry. */
  CERT_RETRY_BASE_SECONDS: string;
  /** Equal to the certificate consumer's `max_retries`: the attempt after which a job is failed. */
  CERT_JOB_MAX_RETRIES: string;
  /** RFC 8555 directory of the CA when `CERT_ISSUER=acme`; `ACME_CONTACT`: comma-separated `mailto:` URLs. */
  ACME_DIRECTORY_URL?: string;
  ACME_CONTACT?: string;
  /** Cloudflare for SaaS zone, and the secret API token with SSL and Certificates: Edit on it. */
  CLOUDFLARE_ZONE_ID?: string;
  CLOUDFLARE_API_TOKEN?: string;
  /** Seconds a collected deployment's objects are kept for reads in flight. */
  RETIRED_DEPLOYMENT_GRACE_SECONDS: string;
  /** Seconds an object that nothing holds (a deploy cut before its commit left it) is spared by the daily sweep. */
  ORPHAN_SWEEP_GRACE_SECONDS: string;
  /** A site keeps its newest DEPLOYMENTS_KEPT deployments and any younger than DEPLOYMENTS_KEPT_DAYS. */
  DEPLOYMENTS_KEPT: string;
  DEPLOYMENTS_KEPT_DAYS: string;
  /** A site's incremental deploys still uploading, at most. */
  MAX_UNFINISHED_DEPLOYMENTS: string;
  /** Per-user quotas: sites owned, bytes stored, deploys begun per hour. */
  MAX_SITES_PER_USER: string;
  MAX_USER_BYTES: string;
  DEPLOYS_PER_HOUR: string;
  /** API tokens: longest life in days, unexpired tokens per user, revocation delay in seconds. */
  API_TOKEN_MAX_DAYS: string;
  API_TOKENS_PER_USER: string;
  API_TOKEN_CHECK_SECONDS: string;
  /** Trusted deploys from GitHub Actions: the ID tokens' issuer, and the audience they must name (empty: the API's origin). */
  GITHUB_OIDC_ISSUER: string;
  OIDC_AUDIENCE: string;
  /** Kept deployments are served at `<id>.<PREVIEW_HOSTNAME>`. */
  PREVIEW_HOSTNAME: string;
  /** Days of event history kept for replay (default 7). */
  EVENTS_RETENTION_DAYS: string;
  /** `dns` or `off`: whether a domain is claimed only with a DNS proof (src/domains). */
  DOMAIN_PROOF: string;
  /** DNS-over-HTTPS JSON API the proofs are looked up at. */
  DNS_RESOLVER_URL: string;
  /** Names directly under it are the service's free subdomains; empty: none. */
  SITES_PARENT_DOMAIN: string;
  /** Secret: the key of proof values (AUTH_SECRET when unset). */
  DOMAIN_PROOF_SECRET?: string;
  /** Comma-separated receivers of signed event POSTs; empty turns webhooks off. */
  WEBHOOK_URLS: string;
  /** `local` or `cloudflare`: how a change is purged from every location's cache (docs/serving.md). */
  EDGE_PURGE: string;
  /** The host of location-cache keys; a hostname of `CLOUDFLARE_ZONE_ID`'s zone with `EDGE_PURGE=cloudflare`. */
  EDGE_CACHE_HOST: string;
  /** Comma-separated named caches a local purge clears besides the default one. */
  EDGE_LOCAL_CACHES: string;
  /** Protected sites (src/platform/protection-settings.ts). */
  NEW_SITE_PREVIEWS: string;
  SHARE_LINK_MAX_SECONDS: string;
  SIGN_IN_ATTEMPTS_PER_MINUTE: string;
  SITE_PASSWORD_MIN_LENGTH: string;
  MAX_CREDENTIAL_HEADER_BYTES: string;
  /** The limits of USER_RATE_LIMITER and ADDRESS_RATE_LIMITER, per minute: each must equal its binding's. */
  API_REQUESTS_PER_MINUTE: string;
  ANONYMOUS_REQUESTS_PER_MINUTE: string;
  /** Purge by URL: URLs per request (100; 500 on Enterprise), the plan's URLs per second, and how long a change waits for its purge. */
  EDGE_PURGE_URLS_PER_REQUEST: string;
  EDGE_PURGE_URLS_PER_SECOND: string;
  EDGE_PURGE_WAIT_MS: string;
  /** Cloudflare's global API limit (requests per window, per token) and the requests per window kept for certificate calls. */
  CLOUDFLARE_API_REQUESTS: string;
  CLOUDFLARE_API_WINDOW_SECONDS: string;
  CLOUDFLARE_API_RESERVED_FOR_CERTIFICATES: string;
  /** Standard Webhooks signing secret (`whsec_<base64>` or any text); a secret, not a var. */
  WEBHOOK_SECRET?: string;
}
