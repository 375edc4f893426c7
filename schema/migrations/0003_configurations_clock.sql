-- GET /v2/configurations stamps Last-Modified by the second of the latest change once that second
-- is over (src/api/configurations.ts), so the change before it is no longer needed.
ALTER TABLE clocks DROP COLUMN previous;
