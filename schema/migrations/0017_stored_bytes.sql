-- The quota ledger stops growing with stored objects (issue 32; docs/design.md, "Capacity").

-- The bytes each user stores on each domain: the sum of the objects the domain's coordinator
-- records for them in its own storage (src/coordinator/object-ledger.ts), changed by the commit
-- that changes them, one statement a commit. It replaces stored_objects' row per object, whose
-- rows each coordinator moves here on first use (and the daily cron for idle domains); until
-- stored_objects is empty, a user's bytes are this table's sum plus their rows left there.
CREATE TABLE stored_bytes (
  user_id TEXT NOT NULL,
  domain TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (user_id, domain)
) WITHOUT ROWID;

-- A total that falls to zero goes: no row is left for a domain where a user stores nothing (an
-- upload stranded on a domain claimed by another, say), so that rows stay one per site stored.
CREATE TRIGGER stored_bytes_drop_zero AFTER UPDATE OF bytes ON stored_bytes WHEN NEW.bytes = 0
BEGIN
  DELETE FROM stored_bytes WHERE user_id = NEW.user_id AND domain = NEW.domain;
END;

-- Each deploy recorded sweeps its user's deploys older than an hour (DEPLOYS_PER_HOUR counts a
-- sliding hour; older rows count for nothing): the admission batch no longer runs that delete
-- itself (src/storage/usage-ledger.ts, beginDeploy). A user keeps at most DEPLOYS_PER_HOUR rows:
-- those of the hour before their last deploy.
CREATE TRIGGER user_deploys_sweep AFTER INSERT ON user_deploys
BEGIN
  DELETE FROM user_deploys WHERE user_id = NEW.user_id AND at <= NEW.at - 3600000;
END;
