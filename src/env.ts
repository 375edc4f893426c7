import type { SiteCoordinator } from './deploy/site-coordinator';

/** Bindings and vars of the Worker (see wrangler.toml). Vars arrive as strings. */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  SITES: DurableObjectNamespace<SiteCoordinator>;
  NOTIFICATIONS: Queue<unknown>;
  CERTIFICATES: Queue<unknown>;

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

  MAX_FILES: string;
  MAX_TOTAL_BYTES: string;
  MAX_FILE_BYTES: string;
  CERT_ISSUER: string;
  /** Seconds a replaced deployment's objects are kept for reads in flight. */
  RETIRED_DEPLOYMENT_GRACE_SECONDS: string;
}
