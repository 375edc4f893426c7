-- Service-issued API tokens (docs/api.md, "Tokens"). Only the SHA-256 of a token is kept: the
-- token itself is shown once, when it is made. Times are epoch milliseconds (UTC).
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
);

CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created);

-- Sign-out everywhere: every JWT of the user issued (`iat`) before `before` (epoch seconds) is refused.
CREATE TABLE sign_outs (
  user_id TEXT PRIMARY KEY,
  before INTEGER NOT NULL
);
