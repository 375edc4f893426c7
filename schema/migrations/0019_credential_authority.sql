-- Who a credential acts as (docs/design.md, "Authority"). Times are epoch milliseconds (UTC).

-- The most a token limited to sites is there: 'owner' or 'deployer'. NULL for a token of every
-- site (its user's own role), and for a site token made before roles, which is read as a deployer.
ALTER TABLE api_tokens ADD COLUMN role TEXT;
-- A CI identity's job as its verified ID token named it (JSON), for a token made by
-- POST /v2/oidc/github; NULL for a token its user made. Such tokens are outside API_TOKENS_PER_USER.
ALTER TABLE api_tokens ADD COLUMN job TEXT;

-- The daily cron sweeps expired tokens.
CREATE INDEX api_tokens_by_expiry ON api_tokens (expires);

-- The `event_name` claim a policy requires (e.g. 'push'); NULL: any but 'pull_request_target'.
ALTER TABLE site_trust_github ADD COLUMN event_name TEXT;

-- Exchanges per site and hour (OIDC_EXCHANGES_PER_SITE_HOUR): a counter each, swept by the daily cron.
CREATE TABLE oidc_exchange_counts (
  domain TEXT NOT NULL,
  -- Epoch hour (milliseconds / 3600000, floored).
  hour INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (domain, hour)
);
