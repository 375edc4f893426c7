-- Deployments (issue 14): every change that produces new content is kept as an immutable
-- deployment, its files (an index in R2 over shared packs) and its host options, so that any kept
-- one can be made live again or previewed. The site's `deployment_id` names the live one.
-- Times are epoch milliseconds (UTC).
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
);

CREATE INDEX deployments_by_domain ON deployments (domain, created DESC, id DESC);

-- Where each stored content hash of a site lies, so that an incremental deploy learns what it
-- must upload in one query. Rows go with their pack when it is collected.
CREATE TABLE site_blobs (
  domain TEXT NOT NULL,
  -- SHA-256, base64url, as in the file index.
  hash TEXT NOT NULL,
  pack TEXT NOT NULL,
  offset INTEGER NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (domain, hash)
);

CREATE INDEX site_blobs_by_pack ON site_blobs (domain, pack);

-- The live deployments of existing sites become their first kept deployment.
INSERT INTO deployments (id, domain, created, created_by, source, state, file_count, total_bytes, index_key, packs, configuration)
SELECT deployment_id, domain, deployment_created, user_id, 'deploy', 'ready', file_count, total_bytes, deployment_index_key,
  deployment_packs, configuration
FROM sites WHERE deployment_id IS NOT NULL;
