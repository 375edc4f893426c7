-- Site members and trusted deploys from GitHub Actions (docs/api.md, "Members" and "Trusted
-- deploys"). Times are epoch milliseconds (UTC).

-- Who besides its owner may reach a site, and how far (src/coordinator/access.ts).
CREATE TABLE site_members (
  domain TEXT NOT NULL,
  user_id TEXT NOT NULL,
  -- 'deployer' or 'viewer'.
  role TEXT NOT NULL,
  added INTEGER NOT NULL,
  PRIMARY KEY (domain, user_id)
);

-- The sites a user is a member of, for GET /v2/sites.
CREATE INDEX site_members_by_user ON site_members (user_id, domain);

-- One GitHub Actions trust policy per site: the ID tokens it accepts (src/auth/github-oidc.ts).
CREATE TABLE site_trust_github (
  domain TEXT PRIMARY KEY,
  repository TEXT NOT NULL,
  -- GitHub's numeric ids, as its claims carry them (text): a renamed or re-registered repository keeps neither.
  repository_id TEXT NOT NULL,
  repository_owner_id TEXT NOT NULL,
  -- The workflow file, e.g. .github/workflows/deploy.yml.
  workflow TEXT NOT NULL,
  -- NULL: any ref, any environment.
  ref TEXT,
  environment TEXT,
  modified INTEGER NOT NULL
);

-- An exchange finds the policies of the token's repository.
CREATE INDEX site_trust_github_by_repository ON site_trust_github (repository_id);

-- ID tokens already exchanged (their `jti`), kept until they expire: a replay is refused.
CREATE TABLE oidc_seen_tokens (
  jti TEXT PRIMARY KEY,
  expires INTEGER NOT NULL
);

CREATE INDEX oidc_seen_tokens_by_expiry ON oidc_seen_tokens (expires);
