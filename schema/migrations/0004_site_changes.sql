-- The last change each domain's coordinator committed, written in the same batch as the change
-- itself: a coordinator that stopped between its commit and storing what follows asks here
-- whether the change happened (src/deploy/site-coordinator.ts). Kept after an unpublish.
CREATE TABLE site_changes (
  domain TEXT PRIMARY KEY,
  change_id TEXT NOT NULL
);
