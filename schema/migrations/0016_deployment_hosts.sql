-- The directory of the hosts that name a deployment without its domain (issue 32): a preview host
-- `<id>.<PREVIEW_HOSTNAME>` (id -> domain) and an alias host `<alias>--<site part>.<PREVIEW_HOSTNAME>`
-- (alias label -> domain). A site's deployments themselves live in its coordinator's storage
-- (src/coordinator/deployment-store.ts); serving a preview finds the domain here and asks the
-- domain's coordinator for the record. One row per ready deployment, written and deleted in the
-- batch of the change that makes or collects it. No rowid, and no index but the partial one on
-- the alias label: each row costs its few bytes alone.
CREATE TABLE deployment_hosts (
  id TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  -- The first label of the deployment's alias host, when it has an alias.
  alias_label TEXT
) WITHOUT ROWID;

CREATE INDEX deployment_hosts_by_alias_label ON deployment_hosts (alias_label) WHERE alias_label IS NOT NULL;

-- The ready deployments D1 keeps until their coordinators move them (on first use, or by the daily
-- cron: src/coordinator/d1-moves.ts) are served from the first request on.
INSERT INTO deployment_hosts (id, domain, alias_label) SELECT id, domain, alias_label FROM deployments WHERE state = 'ready';
