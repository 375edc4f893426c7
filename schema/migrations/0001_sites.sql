-- Sites, their current deployment and configuration. Times are epoch milliseconds (UTC).
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
);

CREATE INDEX sites_by_user ON sites (user_id, domain);

-- When the set of configurations last changed (GET /v2/configurations' Last-Modified).
-- `previous` tells whether two changes fell within one second (see api/configurations.ts).
CREATE TABLE clocks (
  name TEXT PRIMARY KEY,
  modified INTEGER NOT NULL,
  previous INTEGER NOT NULL
);

INSERT INTO clocks (name, modified, previous) VALUES ('configurations', 0, 0);
