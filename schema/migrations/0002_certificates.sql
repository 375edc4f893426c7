-- Certificates of hosted domains and the state of the jobs that issue them (src/certificates).
-- Times are epoch milliseconds (UTC).
CREATE TABLE certificates (
  domain TEXT PRIMARY KEY,
  -- 'off': CERT_ISSUER=off; 'pending': a job is at work; 'issued'; 'failed' (see reason).
  status TEXT NOT NULL CHECK (status IN ('off', 'pending', 'issued', 'failed')),
  -- Why the last attempt failed; kept while a renewal of an issued certificate fails.
  reason TEXT,
  updated INTEGER NOT NULL,
  issued INTEGER,
  expires INTEGER,
  -- Which issuer holds it: 'acme' (chain and key below) or 'cloudflare' (kept at Cloudflare's edge).
  issuer TEXT,
  -- PEM chain, leaf first.
  chain TEXT,
  -- AES-GCM of the PEM private key under CERT_ENCRYPTION_KEY (src/certificates/keys-at-rest.ts).
  encrypted_key BLOB,
  -- Cloudflare for SaaS custom hostname id, for polling and deletion.
  external_id TEXT,
  -- The queue message entitled to work on this certificate until lease_until; a job delivered
  -- twice, or a second job for the same domain, finds the lease taken and stops.
  job_id TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX certificates_by_expiry ON certificates (status, expires);

-- HTTP-01 answers: GET http://<domain>/.well-known/acme-challenge/<token> returns key_authorization.
CREATE TABLE acme_challenges (
  token TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  key_authorization TEXT NOT NULL,
  created INTEGER NOT NULL
);

CREATE INDEX acme_challenges_by_domain ON acme_challenges (domain);

-- One ACME account per directory; its private JWK encrypted like certificate keys.
CREATE TABLE acme_accounts (
  directory_url TEXT PRIMARY KEY,
  account_url TEXT NOT NULL,
  encrypted_key BLOB NOT NULL,
  created INTEGER NOT NULL
);
