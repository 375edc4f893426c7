-- Which API token made each token (docs/design.md, "Revocation"): revoking a token revokes every
-- token it made, and theirs. NULL: made by a JWT (sign-out everywhere revokes those).
ALTER TABLE api_tokens ADD COLUMN parent_id TEXT;

CREATE INDEX api_tokens_by_parent ON api_tokens (parent_id) WHERE parent_id IS NOT NULL;
