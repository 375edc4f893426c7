-- When a deployment last stopped being live (a later change went live), epoch milliseconds; null
-- while it never has: the live one made by a change, a preview never made live. A rollback
-- without an id makes live the newest deployment older than the live one that was live once.
-- Deployments kept from before this column stay null.
ALTER TABLE deployments ADD COLUMN live_until INTEGER;
