-- What tells deployments apart besides their files (issue 28): a message, the client that made
-- it, an alias (a stable preview host for the newest deployment with it), and whether it was
-- made as a preview (not live when made). Deployments kept from before stay without them: null,
-- and not previews.
-- The message its maker gave (`--message`), at most 1,000 characters.
ALTER TABLE deployments ADD COLUMN message TEXT;
-- 'cli', 'dashboard' or 'api' (the Sitehost-Client header); null when made before this was recorded.
ALTER TABLE deployments ADD COLUMN client TEXT;
-- The alias (`--alias`), and its host's first label, `<alias>--<site part>`, which serving looks up.
ALTER TABLE deployments ADD COLUMN alias TEXT;
ALTER TABLE deployments ADD COLUMN alias_label TEXT;
-- 1 when made without going live (a preview), even if made live later.
ALTER TABLE deployments ADD COLUMN preview INTEGER NOT NULL DEFAULT 0;

CREATE INDEX deployments_by_alias_label ON deployments (alias_label, created DESC, id DESC) WHERE alias_label IS NOT NULL;
