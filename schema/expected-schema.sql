-- The schema schema/migrations make, applied in order to an empty database by scripts/local-migrations.mjs.
-- test/node/local-migrations.test.ts compares it with what they make now; after adding a migration, rewrite it:
--   npx vitest run test/node/local-migrations.test.ts --update

CREATE TABLE acme_accounts (
  directory_url TEXT PRIMARY KEY,
  account_url TEXT NOT NULL,
  encrypted_key BLOB NOT NULL,
  created INTEGER NOT NULL
);

CREATE TABLE acme_challenges (
  token TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  key_authorization TEXT NOT NULL,
  created INTEGER NOT NULL
);

CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  -- Lower-case hex SHA-256 of the whole token: how a bearer token finds its row.
  hash TEXT NOT NULL UNIQUE,
  -- Space-separated scopes, as a JWT's `scope` claim.
  scopes TEXT NOT NULL,
  -- A JSON array of the domains the token is limited to; NULL: every site of its user.
  sites TEXT,
  created INTEGER NOT NULL,
  expires INTEGER NOT NULL,
  -- Set on first use, then at most every few minutes (src/auth/api-tokens.ts).
  last_used INTEGER
, parent_id TEXT, role TEXT, job TEXT);

CREATE TABLE bucket_scans (
  name TEXT PRIMARY KEY,
  after TEXT,
  -- When this scan began, and the two before it (epoch milliseconds; 0: none).
  started INTEGER NOT NULL,
  previous_started INTEGER NOT NULL,
  earlier_started INTEGER NOT NULL
);

CREATE TABLE certificates (
  domain TEXT PRIMARY KEY,
  -- 'off': CERT_ISSUER=off; 'pending': a job is at work; 'issued'; 'failed' (see reason).
  status TEXT NOT NULL CHECK (status IN ('off', 'pending', 'issued', 'failed')),
  -- Why the last attempt failed; kept while a renewal of an issued certificate fails.
  reason TEXT,
  updated INTEGER NOT NULL,
  issued INTEGER,
  expires INTEGER,
  -- Which issuer holds it: 'acme' (chain and key below) or 'cloudflare' (kept at Cloudflare's edge).
  issuer TEXT,
  -- PEM chain, leaf first.
  chain TEXT,
  -- AES-GCM of the PEM private key under CERT_ENCRYPTION_KEY (src/certificates/keys-at-rest.ts).
  encrypted_key BLOB,
  -- Cloudflare for SaaS custom hostname id, for polling and deletion.
  external_id TEXT,
  -- The queue message entitled to work on this certificate until lease_until; a job delivered
  -- twice, or a second job for the same domain, finds the lease taken and stops.
  job_id TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE clocks (
  name TEXT PRIMARY KEY,
  modified INTEGER NOT NULL);

CREATE TABLE dead_letters (
  queue TEXT NOT NULL,
  message_id TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  kept_at INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (queue, message_id)
);

CREATE TABLE deployment_hosts (
  id TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  -- The first label of the deployment's alias host, when it has an alias.
  alias_label TEXT
) WITHOUT ROWID;

CREATE TABLE deployments (
  id TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  created INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  -- What produced it: 'deploy', 'incremental', 'file-put', 'file-delete' or 'configuration'.
  source TEXT NOT NULL,
  -- 'uploading': an incremental deploy still receiving bytes (its manifest at manifest_key); 'ready'.
  state TEXT NOT NULL CHECK (state IN ('uploading', 'ready')),
  file_count INTEGER NOT NULL DEFAULT 0,
  total_bytes INTEGER NOT NULL DEFAULT 0,
  -- Null while uploading, and for a site without files.
  index_key TEXT,
  -- R2 keys of the packs its files live in (JSON array), shared with other deployments.
  packs TEXT NOT NULL DEFAULT '[]',
  configuration TEXT NOT NULL DEFAULT '{}',
  manifest_key TEXT
, live_until INTEGER, message TEXT, client TEXT, alias TEXT, alias_label TEXT, preview INTEGER NOT NULL DEFAULT 0);

CREATE TABLE oidc_exchange_counts (
  domain TEXT NOT NULL,
  -- Epoch hour (milliseconds / 3600000, floored).
  hour INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (domain, hour)
);

CREATE TABLE oidc_seen_tokens (
  jti TEXT PRIMARY KEY,
  expires INTEGER NOT NULL
);

CREATE TABLE quota_reservations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  sites INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  expires INTEGER NOT NULL
);

CREATE TABLE service_keys (
  name TEXT PRIMARY KEY,
  key BLOB NOT NULL
);

CREATE TABLE sign_outs (
  user_id TEXT PRIMARY KEY,
  before INTEGER NOT NULL
);

CREATE TABLE site_blobs (
  domain TEXT NOT NULL,
  -- SHA-256, base64url, as in the file index.
  hash TEXT NOT NULL,
  pack TEXT NOT NULL,
  offset INTEGER NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (domain, hash)
);

CREATE TABLE site_changes (
  domain TEXT PRIMARY KEY,
  change_id TEXT NOT NULL
);

CREATE TABLE site_members (
  domain TEXT NOT NULL,
  user_id TEXT NOT NULL,
  -- 'deployer' or 'viewer'.
  role TEXT NOT NULL,
  added INTEGER NOT NULL,
  PRIMARY KEY (domain, user_id)
);

CREATE TABLE site_trust_github (
  domain TEXT PRIMARY KEY,
  repository TEXT NOT NULL,
  -- GitHub's numeric ids, as its claims carry them (text): a renamed or re-registered repository keeps neither.
  repository_id TEXT NOT NULL,
  repository_owner_id TEXT NOT NULL,
  -- The workflow file, e.g. .github/workflows/deploy.yml.
  workflow TEXT NOT NULL,
  -- NULL: any ref, any environment.
  ref TEXT,
  environment TEXT,
  modified INTEGER NOT NULL
, event_name TEXT);

CREATE TABLE sites (
  domain TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created INTEGER NOT NULL,
  modified INTEGER NOT NULL,
  configuration TEXT NOT NULL DEFAULT '{}',
  configuration_modified INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  -- The live deployment: its id, file index object and the pack objects its files live in.
  deployment_id TEXT,
  deployment_created INTEGER,
  deployment_index_key TEXT,
  deployment_packs TEXT NOT NULL DEFAULT '[]',
  file_count INTEGER NOT NULL DEFAULT 0,
  total_bytes INTEGER NOT NULL DEFAULT 0
, suspension_reason TEXT, suspended_at INTEGER, protection TEXT);

CREATE TABLE stored_bytes (
  user_id TEXT NOT NULL,
  domain TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (user_id, domain)
) WITHOUT ROWID;

CREATE TABLE stored_objects (
  key TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  user_id TEXT NOT NULL,
  bytes INTEGER NOT NULL
);

CREATE TABLE unpublished_configurations (
  domain TEXT PRIMARY KEY,
  modified INTEGER NOT NULL
);

CREATE TABLE user_deploys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  at INTEGER NOT NULL
);

CREATE TABLE user_suspensions (
  user_id TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  suspended_at INTEGER NOT NULL,
  change_id TEXT NOT NULL,
  resumed_at INTEGER
);

CREATE INDEX acme_challenges_by_domain ON acme_challenges (domain);

CREATE INDEX api_tokens_by_expiry ON api_tokens (expires);

CREATE INDEX api_tokens_by_parent ON api_tokens (parent_id) WHERE parent_id IS NOT NULL;

CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created);

CREATE INDEX certificates_by_expiry ON certificates (status, expires);

CREATE INDEX dead_letters_kept_at ON dead_letters (kept_at);

CREATE INDEX deployment_hosts_by_alias_label ON deployment_hosts (alias_label) WHERE alias_label IS NOT NULL;

CREATE INDEX deployment_hosts_by_domain ON deployment_hosts (domain);

CREATE INDEX deployments_by_alias_label ON deployments (alias_label, created DESC, id DESC) WHERE alias_label IS NOT NULL;

CREATE INDEX deployments_by_domain ON deployments (domain, created DESC, id DESC);

CREATE INDEX oidc_seen_tokens_by_expiry ON oidc_seen_tokens (expires);

CREATE INDEX quota_reservations_by_user ON quota_reservations (user_id, expires);

CREATE INDEX site_blobs_by_pack ON site_blobs (domain, pack);

CREATE INDEX site_members_by_user ON site_members (user_id, domain);

CREATE INDEX site_trust_github_by_repository ON site_trust_github (repository_id);

CREATE INDEX sites_by_configuration_modified ON sites (configuration_modified);

CREATE INDEX sites_by_user ON sites (user_id, domain);

CREATE INDEX stored_bytes_by_domain ON stored_bytes (domain);

CREATE INDEX stored_objects_by_domain ON stored_objects (domain);

CREATE INDEX stored_objects_by_user ON stored_objects (user_id);

CREATE INDEX unpublished_configurations_by_modified ON unpublished_configurations (modified);

CREATE INDEX user_deploys_by_user ON user_deploys (user_id, at);

CREATE TRIGGER stored_bytes_drop_zero AFTER UPDATE OF bytes ON stored_bytes WHEN NEW.bytes = 0
BEGIN
  DELETE FROM stored_bytes WHERE user_id = NEW.user_id AND domain = NEW.domain;
END;

CREATE TRIGGER user_deploys_sweep AFTER INSERT ON user_deploys
BEGIN
  DELETE FROM user_deploys WHERE user_id = NEW.user_id AND at <= NEW.at - 3600000;
END;
