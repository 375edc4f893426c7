-- An operator's suspension of a site (`PUT /v2/sites/<domain>/suspension`, scope admin): while
-- `suspended_at` is set, the domain and its previews answer 451 and the owner cannot change the
-- site. `suspension_reason` is shown to the owner in `GET .../info`. Epoch milliseconds (UTC).
ALTER TABLE sites ADD COLUMN suspension_reason TEXT;
ALTER TABLE sites ADD COLUMN suspended_at INTEGER;
