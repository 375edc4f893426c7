-- The changes feed of GET /v2/configurations (issue 32, src/storage/configurations-feed.ts).
-- Every configuration change ticks the 'configurations' clock and stamps the site's
-- configuration_modified with it, so a cursor is a clock value: the changes after it are the
-- sites stamped later (this index) and the sites unpublished later (their tombstones below).

CREATE INDEX sites_by_configuration_modified ON sites (configuration_modified);

-- One row per unpublished domain: when (the clock's value at its unpublish). A domain published
-- again keeps its row until the row is forgotten, and reads as its site meanwhile. Rows older
-- than CONFIGURATION_CHANGES_RETENTION_DAYS are forgotten by the daily cron, a bounded number a run.
CREATE TABLE unpublished_configurations (
  domain TEXT PRIMARY KEY,
  modified INTEGER NOT NULL
);

CREATE INDEX unpublished_configurations_by_modified ON unpublished_configurations (modified);

-- The newest tombstone forgotten: a cursor before it may have missed an unpublish (410 Gone).
INSERT INTO clocks (name, modified) VALUES ('configurations-forgotten', 0);

-- The key that signs this database's cursors (HMAC-SHA-256): random per database, never answered,
-- so a cursor from another deployment of the service, or a forged one, is refused.
CREATE TABLE service_keys (
  name TEXT PRIMARY KEY,
  key BLOB NOT NULL
);

INSERT INTO service_keys (name, key) VALUES ('configurations-cursor', randomblob(32));

-- Where the daily orphan sweep (src/coordinator/orphan-sweeps.ts) goes on listing the bucket: each
-- run lists a bounded number of keys after `after` (null: a new scan from the start), and the
-- scans' start times bound which objects count as lately written.
CREATE TABLE bucket_scans (
  name TEXT PRIMARY KEY,
  after TEXT,
  -- When this scan began, and the two before it (epoch milliseconds; 0: none).
  started INTEGER NOT NULL,
  previous_started INTEGER NOT NULL,
  earlier_started INTEGER NOT NULL
);

INSERT INTO bucket_scans (name, after, started, previous_started, earlier_started) VALUES ('orphans', NULL, 0, 0, 0);
