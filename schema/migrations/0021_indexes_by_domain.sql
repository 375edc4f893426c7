-- Reads of a site's rows by its domain find them through an index, in tables that grow with sites
-- (docs/design.md, "Capacity"; test/storage/query-plans.unit.test.ts checks every Worker statement's plan).

-- The directory of preview hosts by domain: the daily orphan sweep asks it which deployments it
-- names on the sweep's domains, and a reconciliation on its one domain
-- (src/storage/deployment-hosts.ts, hostedDeployments). Without it, each asking read every row: at
-- 1M sites with 5 kept deployments, 5M rows a sweep run, and as many for each site reconciled after
-- a restore. No rowid: an entry is the domain and the id, all the question reads.
CREATE INDEX deployment_hosts_by_domain ON deployment_hosts (domain);

-- The byte totals by domain: a reconciliation replaces its domain's totals, whoever's they are
-- (src/storage/usage-ledger.ts, replaceStoredBytes), and after a restore every site is reconciled.
CREATE INDEX stored_bytes_by_domain ON stored_bytes (domain);
