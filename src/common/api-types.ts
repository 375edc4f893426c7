// The API's response bodies, declared once for the Worker that sends them and the CLI and the
// dashboard that read them. Each is a component schema of schema/openapi.json under the same
// name; test/common/api-types.test.ts checks that the two agree.

import type { DeploymentClient } from './deployment-labels.ts';
import type { DeploymentProvenance } from './provenance.ts';

export type { DeploymentProvenance, GithubJobProvenance } from './provenance.ts';

/** UTC, `YYYY-MM-DDTHH:mm:ss.SSS`, no zone designator. */
export type Timestamp = string;

/** One of the caller's sites (`GET /v2/sites`): one they own, or one they are a member of. */
export interface Site {
  domain: string;
  /** The owner. */
  userId: string;
  modified: Timestamp;
  /** The caller's role on it. */
  role: 'owner' | 'deployer' | 'viewer';
}

/** Someone who may reach a site (`GET /v2/sites/<domain>/members`, `PUT .../members/<userId>`). */
export interface SiteMember {
  userId: string;
  role: 'owner' | 'deployer' | 'viewer';
  /** When they became a member (the owner: when the site was made). */
  addedAt: Timestamp;
}

/** `GET /v2/sites/<domain>/members`: the owner and the members, by user id. */
export interface SiteMembers {
  owner: SiteMember;
  members: SiteMember[];
}

/** A site's GitHub Actions trust policy (`PUT`/`GET /v2/sites/<domain>/trust/github`): which jobs' ID tokens may deploy it. */
export interface GithubTrustPolicy {
  domain: string;
  /** `owner/name`, as the `repository` claim. */
  repository: string;
  /** The `repository_id` and `repository_owner_id` claims, which a renamed or re-registered repository does not keep. */
  repositoryId: string;
  repositoryOwnerId: string;
  /** The workflow file, e.g. `.github/workflows/deploy.yml`, matched against `job_workflow_ref`. */
  workflow: string;
  /** The `ref` and `environment` claims required; null: any. */
  ref: string | null;
  environment: string | null;
  /** The `event_name` claim required (e.g. `push`); null: any but `pull_request_target`, which only a policy naming it accepts. */
  eventName: string | null;
  modified: Timestamp;
}

/** `POST /v2/oidc/github`: a service token for the sites whose policy the ID token matched. */
export interface OidcExchange {
  token: string;
  expiresAt: Timestamp;
  sites: string[];
}

/** A site's host options with when they last changed (`GET`, `PUT`, `PATCH .../configuration`). */
export interface ConfigurationRecord {
  domain: string;
  modified: Timestamp;
  configuration: Record<string, unknown>;
}

/** One change of the configurations feed (`GET /v2/configurations?since=`): a site's record at its latest, or its unpublish. */
export type ConfigurationChange = ConfigurationRecord | { domain: string; modified: Timestamp; deleted: true };

/** A page of the configurations feed: the changes after the cursor asked with, oldest first, and the cursor to ask with next. */
export interface ConfigurationChanges {
  changes: ConfigurationChange[];
  cursor: string;
}

/** The answer of `PUT /v2/sites/<domain>` (and of an activation or a live finalize), and the data of its `site-deploy` event. */
export interface DeployResult {
  type: 'site-deploy';
  domain: string;
  isNewDomain: boolean;
  hasNewFiles: boolean;
  hasNewConfiguration: boolean;
  /** The deployment now live. */
  deploymentId: string;
  /** When it went live: of concurrent deploys, the latest commit is the one left live. */
  committedAt: Timestamp;
  /** With what credential the deployment now live was made, when that was recorded (absent: made before). */
  provenance?: DeploymentProvenance;
  /**
   * Only in a deploy's answer, never in an event: the site served these files and host options
   * already, so no deployment was made; `deploymentId` is the live one, `committedAt` when the
   * service found so.
   */
  unchanged?: true;
}

export type DeploymentSource = 'deploy' | 'incremental' | 'file-put' | 'file-delete' | 'configuration';

/** A kept deployment of a site (`GET .../deployments/<id>`): its files and host options, immutable. */
export interface Deployment {
  /** Lowercase base32, a valid DNS label: the preview host is `<id>.<PREVIEW_HOSTNAME>`. */
  id: string;
  live: boolean;
  createdAt: Timestamp;
  createdBy: string;
  fileCount: number;
  totalBytes: number;
  source: DeploymentSource;
  previewUrl: string;
  /** When it last stopped being live; null while live, or never live (a preview not made live). */
  liveUntil: Timestamp | null;
  /** Made without going live (`?preview=true`, finalize `{"preview": true}`), even if made live later. */
  preview: boolean;
  /** What its maker said of it (`sitehost deploy --message`), or null. */
  message: string | null;
  /** Through what it was made (the `Sitehost-Client` header); null when made before this was recorded. */
  client: DeploymentClient | null;
  /** Its alias, or null: the alias host serves the newest ready deployment with it. */
  alias: string | null;
  /** The alias host, `<alias>--<site part>.<PREVIEW_HOSTNAME>`, or null without an alias. */
  aliasUrl: string | null;
  /** With what credential it was made; null when made before this was recorded, or by an edit of files or configuration. */
  provenance: DeploymentProvenance | null;
  /** `uploading` while an incremental deploy still lacks bytes; listed deployments are `ready`. */
  state: 'uploading' | 'ready';
  /** While uploading: the SHA-256 (hex) of the bytes still to send. */
  missing?: string[];
}

/** `GET .../deployments`: newest first; `next` is the `cursor` of the following page. */
export interface DeploymentPage {
  deployments: Deployment[];
  next: string | null;
}

/** A redirect or rewrite of a deployment: from its `_redirects`, or its host options' `redirects`. */
export interface DeploymentRedirect {
  source: '_redirects' | 'configuration';
  /** RFC 6570 template of the request paths it applies to (a file's `:name` is `{name}`, its `*` is `{+splat}`). */
  from: string;
  /** Template of the target: a path of the site, or for a redirect an absolute URL. */
  to: string;
  /** 3xx redirects; from `_redirects`, 200 rewrites and 404/410 serve the target with that status. */
  status: number;
  /** Applies where a file answers the path too: `!` in `_redirects`; always for the host options', tried before files. */
  force: boolean;
  /** An absolute `from`: only requests for this scheme and host, on the live site. */
  origin?: { protocol: 'http:' | 'https:'; host: string };
  /** Query parameters the request must carry. */
  query?: { name: string; variable?: string; equals?: string }[];
  /** `Country=`: ISO 3166 codes. */
  countries?: string[];
  /** `Language=`: language tags. */
  languages?: string[];
}

/** Header fields a deployment adds: from its host options' `headers`, or its `_headers`. */
export interface DeploymentHeaders {
  source: '_headers' | 'configuration';
  /** Template of the request paths it applies to; null: every response that serves a file. */
  uri: string | null;
  /** Values by field name, each set in place of what came before. */
  fields: Record<string, string[]>;
  /** Fields removed before these are set (`! Name` in `_headers`). */
  detach: string[];
}

/** A file that answers a path nothing else answers: the host options' `fallback`, or the root `404.html` when none names a 404 page. */
export interface DeploymentFallback {
  source: 'configuration' | 'default';
  /** 2xx: for page requests only (a single-page app's shell); 4xx and 5xx: for any miss. */
  status: number;
  /** From the site's root (`root`), with a leading slash. */
  path: string;
}

/**
 * `GET .../deployments/<id>/rules`: the rules a deployment is served with, read-only, in the
 * order the service applies them: redirects from `_redirects`, then the host options' (the first
 * that applies wins); headers from the host options, then `_headers` (a later value replaces);
 * the fallbacks tried, in order, when no file answers.
 */
export interface DeploymentRules {
  deploymentId: string;
  redirects: DeploymentRedirect[];
  headers: DeploymentHeaders[];
  fallbacks: DeploymentFallback[];
}

/** A file of a listing, and the answer of a file upload. */
export interface FileEntry {
  name: string;
  /** From the site root, with a leading slash: `/css/a.css`. */
  path: string;
  type: 'file';
  size: number;
  contentType: string;
  etag: string;
  modified: Timestamp;
}

/** A folder of a listing. */
export interface DirectoryEntry {
  name: string;
  /** With a leading and a trailing slash: `/css/`. */
  path: string;
  type: 'directory';
}

/** `GET .../files/<dir>/`. */
export type FileListing = (FileEntry | DirectoryEntry)[];

/** The live deployment of a site, as its info shows it. */
export interface LiveDeployment {
  id: string;
  created: Timestamp;
  fileCount: number;
  totalBytes: number;
}

export type CertificateStatus = 'off' | 'pending' | 'issued' | 'failed';

/** A site's certificate, as its info shows it. */
export interface CertificateSummary {
  status: CertificateStatus;
  issued: Timestamp | null;
  expires: Timestamp | null;
  /** Why the last attempt failed. */
  reason?: string;
}

/** `GET .../info`. */
export interface SiteInfo {
  domain: string;
  userId: string;
  created: Timestamp;
  modified: Timestamp;
  deployment: LiveDeployment | null;
  certificate: CertificateSummary;
  metadata: Record<string, string>;
  /** Set while an operator has suspended the site: it answers 451, and its owner cannot change it. */
  suspension: SiteSuspension | null;
  /** Set while an operator has suspended its owner: every site of theirs answers 451, and they claim and change nothing. */
  userSuspension: SiteSuspension | null;
}

/** An operator's suspension of a site (`PUT /v2/sites/<domain>/suspension`, scope admin). */
export interface SiteSuspension {
  /** Why, in the operator's words, for the owner. */
  reason: string;
  since: Timestamp;
}

/** An operator's suspension of a user (`PUT /v2/users/<userId>/suspension`, scope admin): the sites it reaches. */
export interface UserSuspension extends SiteSuspension {
  userId: string;
  /** The user's sites, each answering 451 now. */
  domains: string[];
}

/** `GET /v2/info`: the service's version, and the `sitehost` package it hands out (docs/cli.md, "Installing"). */
export interface ServiceInfo {
  version: string;
  cli: {
    version: string;
    /** The versioned tarball: `npm install --global <url>`. */
    url: string;
    /** npm's `sha512-…` of the tarball. */
    integrity: string;
  };
}

/** `GET /v2/whoami`: the token's subject, scopes, issuer and expiry, as the service verified them. */
export interface Identity {
  userId: string;
  /** Sorted. */
  scopes: string[];
  issuer: string;
  expiresAt: Timestamp;
  /** An API token's id, and the sites it is limited to (null: every site of its user); absent for a JWT. */
  tokenId?: string;
  sites?: string[] | null;
  /** With `sites`: the most the token is on them; `via` a CI identity's (as `GET /v2/tokens` lists them). */
  role?: TokenRole;
  via?: 'github-oidc';
  /** Present while an operator has suspended the user: they claim and change nothing, and their sites answer 451. */
  suspension?: SiteSuspension;
}

/** The most a token limited to sites may be there: `deployer` (the default) deploys and edits; `owner` also unpublishes and manages members and trust. */
export type TokenRole = 'owner' | 'deployer';

/** An API token as `GET /v2/tokens` lists it: never its secret. */
export interface ApiToken {
  id: string;
  name: string;
  scopes: string[];
  /** The domains it is limited to; null: every site of its user. */
  sites: string[] | null;
  /** The most it is on each of its sites (null for a token of every site: its user's own role there). */
  role: TokenRole | null;
  /** `github-oidc`: made by `POST /v2/oidc/github` for a job (a deployer, outside API_TOKENS_PER_USER); absent: made by its user. */
  via?: 'github-oidc';
  createdAt: Timestamp;
  expiresAt: Timestamp;
  lastUsedAt: Timestamp | null;
  /** The API token that made it (revoking that one revokes this one too); null when a JWT or the GitHub exchange made it. */
  parentId: string | null;
}

/** `POST /v2/tokens`' answer: the token itself, shown this once. */
export interface CreatedApiToken extends ApiToken {
  token: string;
}

/** `DELETE /v2/tokens`' answer: how many tokens went, and the line before which the user's JWTs are refused. */
export interface SignOut {
  revoked: number;
  signedOutBefore: Timestamp;
}

/** A JSON Pointer into the request body and what is wrong there. */
export interface PointerError {
  pointer: string;
  message: string;
}

/** A line of a `_redirects` or `_headers` file that cannot be read, and why. */
export interface LineError {
  file: string;
  line: number;
  message: string;
}

/** An RFC 9457 problem, the body of every error answer. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The violations of a schema, or the lines of a rules file that cannot be read. */
  errors?: (PointerError | LineError)[];
}

/** The DNS record that proves control of a domain: add it to the domain's DNS before its first deploy. */
export interface DomainProofRecord {
  /** `_sitehost-challenge.<domain>`. */
  name: string;
  type: 'TXT';
  /** The caller's value: another user's differs. */
  value: string;
}

/** `GET /v2/domains/<domain>/proof`. */
export interface DomainProof extends DomainProofRecord {
  domain: string;
  /** Whether the caller's first deploy to the domain waits for the record. */
  required: boolean;
  /** Whether the domain's DNS shows the record now (always false with DOMAIN_PROOF=off: nothing is looked up). */
  verified: boolean;
}

/** `/problems/domain-proof-required` (403): the record to add before the first deploy. */
export interface DomainProofProblem extends ProblemDetails {
  record: DomainProofRecord;
}

/** One per-user quota: what the caller uses of it, its limit, and the setting that sets the limit. */
export interface Quota {
  used: number;
  limit: number;
  setting: string;
}

/** `GET /v2/usage`: the caller's use of each per-user quota. */
export interface Usage {
  userId: string;
  /** Sites the caller owns (`MAX_SITES_PER_USER`). */
  sites: Quota;
  /** Bytes stored for the caller's sites and their kept deployments (`MAX_USER_BYTES`). */
  bytes: Quota;
  /** Deploys the caller began within the last hour (`DEPLOYS_PER_HOUR`). */
  deploysPerHour: Quota;
}

// Traffic analytics (`GET /v2/sites/<domain>/analytics`), declared beside this file to keep each file short.
export type * from './analytics-types.ts';
