/**
 * How SQLite runs each statement the Worker prepares on the global D1 (read from src/ as
 * test/node/local-migrations.test.ts reads them), against the schema the migrations make: it finds
 * the rows it wants through an index (SEARCH), and reads no table whole (SCAN) but for the few
 * statements below that do so on purpose. D1 bills rows read, and a cron run has 15 minutes: at a
 * million sites a scan reads millions of rows on every call (docs/design.md, "Capacity").
 * Statements built by a function or from another module's parts are out of reach here
 * (worker-statements.ts counts them as unresolved).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { expect, it } from 'vitest';
import { type Statement, workerStatements } from '../node/support/worker-statements';

const repo = resolve(import.meta.dirname, '../..');

/** Statements that read a whole table, by a part of their SQL, and why that is bounded. */
const wholeReads: Record<string, string> = {
  'FROM sites LEFT JOIN certificates':
    "the daily renewal run's one read of every site's domain: a site without a certificate has no row to find it by",
  'SELECT DISTINCT domain FROM': "a daily move out of D1 (src/coordinator/records/blob-moves.ts): the first `limit` domains in an index's order, then it stops",
  'DELETE FROM oidc_exchange_counts WHERE hour <': 'the daily forgetting of hourly exchange counts: the table holds a day of them, and the statement deletes nearly all it reads',
};

function migratedDatabase(): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  const folder = join(repo, 'schema/migrations');
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.sql')).sort()) db.exec(readFileSync(join(folder, name), 'utf8'));
  return db;
}

/** The steps of `sql`'s query plan, as EXPLAIN QUERY PLAN words them. */
function planOf(db: DatabaseSync, sql: string): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail);
}

/** The steps of `statement`'s plan that read a table whole: not a JSON argument, a constant row, a subquery's or a CTE's own rows. */
function wholeTableReads(db: DatabaseSync, { sql }: Statement): string[] {
  const ctes = new Set([...sql.matchAll(/\bWITH\s+(?:RECURSIVE\s+)?(\w+)/gi)].map((match) => match[1]));
  return planOf(db, sql).filter((step) => {
    const scanned = /^SCAN (\S+)/.exec(step)?.[1];
    return scanned !== undefined && !step.includes('VIRTUAL TABLE') && scanned !== 'CONSTANT' && !scanned.startsWith('(subquery-') && !ctes.has(scanned);
  });
}

const db = migratedDatabase();
const { statements } = workerStatements(repo);

it('reads no table whole in any statement the Worker prepares, but those that do so on purpose', () => {
  const unexpected = statements.flatMap((statement) => {
    if (Object.keys(wholeReads).some((part) => statement.sql.includes(part))) return [];
    const scans = wholeTableReads(db, statement);
    return scans.length === 0 ? [] : [`${statement.at}: ${scans.join('; ')}`];
  });
  expect(unexpected).toEqual([]);
  // Each exception still names a statement: one that went is dropped from the list.
  for (const part of Object.keys(wholeReads)) expect(statements.some((statement) => statement.sql.includes(part)), part).toBe(true);
});

it("finds the orphan sweep's and a reconciliation's directory rows by domain, and a reconciliation's byte totals", () => {
  /** The plan of the Worker's statement `sql` in `file`, as the source has it. */
  const planOfStatement = (file: string, sql: string) => {
    expect(statements.filter((statement) => statement.at.startsWith(`${file}:`) && statement.sql === sql), sql).toHaveLength(1);
    return planOf(db, sql);
  };
  // hostedDeployments: the index alone answers it (an index of a WITHOUT ROWID table holds the primary key, the id).
  expect(planOfStatement('src/storage/deployment-hosts.ts', 'SELECT id, domain FROM deployment_hosts WHERE domain IN (SELECT value FROM json_each(?))')).toContain(
    'SEARCH deployment_hosts USING COVERING INDEX deployment_hosts_by_domain (domain=?)',
  );
  // replaceStoredBytes.
  expect(planOfStatement('src/storage/usage-ledger.ts', 'DELETE FROM stored_bytes WHERE domain = ?')).toContain('SEARCH stored_bytes USING INDEX stored_bytes_by_domain (domain=?)');
});
