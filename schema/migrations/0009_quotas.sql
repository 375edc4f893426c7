-- Per-user quotas (issue 26): MAX_SITES_PER_USER, MAX_USER_BYTES and DEPLOYS_PER_HOUR
-- (src/quotas/). Times are epoch milliseconds by D1's own clock.

-- Every R2 object a site's deployments hold (packs and indexes), its size, and the user it counts
-- against: recorded in the batch that commits it, forgotten in the batch that collects it (or
-- unpublishes its site). A user's stored bytes are the sum of their rows.
CREATE TABLE stored_objects (
  key TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  user_id TEXT NOT NULL,
  bytes INTEGER NOT NULL
);

CREATE INDEX stored_objects_by_user ON stored_objects (user_id);
CREATE INDEX stored_objects_by_domain ON stored_objects (domain);

-- Sites and bytes a coordinator holds for its change between the quota check and the commit: taken
-- only while the user's sites and bytes, with every live reservation, stay within the quotas, and
-- turned into the site's row and stored_objects in the commit's own batch. One a coordinator never
-- committed (it stopped in between) counts until it expires.
CREATE TABLE quota_reservations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  sites INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  expires INTEGER NOT NULL
);

CREATE INDEX quota_reservations_by_user ON quota_reservations (user_id, expires);

-- The deploys each user began in the last hour (older rows are swept as new ones come).
CREATE TABLE user_deploys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  at INTEGER NOT NULL
);

CREATE INDEX user_deploys_by_user ON user_deploys (user_id, at);

-- Sites deployed before this migration: each pack counts the bytes the site records in it (a copy
-- stored twice, and indexes, are not known here and go uncounted until the pack is collected).
INSERT INTO stored_objects (key, domain, user_id, bytes)
SELECT blobs.pack, blobs.domain, sites.user_id, SUM(blobs.size)
FROM site_blobs AS blobs JOIN sites ON sites.domain = blobs.domain
GROUP BY blobs.domain, blobs.pack;
