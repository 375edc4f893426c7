/**
 * A site's kept deployments, and D1's access to them and to where its stored content hashes lay
 * before both moved into its coordinator (issue 32; schema/migrations/0005_deployments.sql,
 * 0010_deployment_labels.sql): read once, when a domain moves, then deleted. The coordinator
 * keeps them now (src/coordinator/records/deployment-store.ts). All times are epoch milliseconds.
 */
import type { DeploymentProvenance } from '../common/api-types';
import type { DeploymentClient } from '../common/deployment-labels';

export type DeploymentSource = 'deploy' | 'incremental' | 'file-put' | 'file-delete' | 'configuration';
export type DeploymentState = 'uploading' | 'ready';

/** One kept deployment: its files (an index over shared packs) and its host options. */
export interface DeploymentRecord {
  id: string;
  domain: string;
  created: number;
  createdBy: string;
  source: DeploymentSource;
  state: DeploymentState;
  fileCount: number;
  totalBytes: number;
  /** Null while uploading, and for a site without files. */
  indexKey: string | null;
  packs: string[];
  configuration: Record<string, unknown>;
  /** An incremental deploy's manifest, while it uploads. */
  manifestKey: string | null;
  /** When it last stopped being live (a later change went live); null while it never has. */
  liveUntil: number | null;
  /** When it last went live (made live, or activated again); absent while it never has, and in records stored before this was kept. */
  liveFrom?: number;
  message: string | null;
  /** Null for a deployment made before clients were recorded. */
  client: DeploymentClient | null;
  alias: string | null;
  /** The first label of the alias's host (src/content/label-checks.ts). */
  aliasLabel: string | null;
  /** Made without going live, even if made live later. */
  preview: boolean;
  /** With what credential it was made; null (or absent, in a record stored before it was recorded): not known. */
  provenance: DeploymentProvenance | null;
}

interface DeploymentRow {
  id: string;
  domain: string;
  created: number;
  created_by: string;
  source: DeploymentSource;
  state: DeploymentState;
  file_count: number;
  total_bytes: number;
  index_key: string | null;
  packs: string;
  configuration: string;
  manifest_key: string | null;
  live_until: number | null;
  message: string | null;
  client: DeploymentClient | null;
  alias: string | null;
  alias_label: string | null;
  preview: number;
}

function toRecord(row: DeploymentRow): DeploymentRecord {
  return {
    id: row.id,
    domain: row.domain,
    created: row.created,
    createdBy: row.created_by,
    source: row.source,
    state: row.state,
    fileCount: row.file_count,
    totalBytes: row.total_bytes,
    indexKey: row.index_key,
    packs: JSON.parse(row.packs),
    configuration: JSON.parse(row.configuration),
    manifestKey: row.manifest_key,
    liveUntil: row.live_until,
    message: row.message,
    client: row.client,
    alias: row.alias,
    aliasLabel: row.alias_label,
    preview: row.preview === 1,
    provenance: null,
  };
}

/**
 * `domain`'s deployments as D1 kept them before issue 32 moved them into its coordinator
 * (src/coordinator/records/deployment-store.ts): read once, when they move.
 */
export async function deploymentsStoredIn(db: D1Database, domain: string): Promise<DeploymentRecord[]> {
  const { results } = await db.prepare('SELECT * FROM deployments WHERE domain = ?').bind(domain).all<DeploymentRow>();
  return results.map(toRecord);
}

/**
 * Statements that delete `domain`'s rows of `deployments` once they moved, leaving its ready ones
 * in the directory (./deployment-hosts.ts), in one batch: a stop leaves the rows or the directory.
 */
export function forgetDeploymentsOf(db: D1Database, domain: string): D1PreparedStatement[] {
  return [
    db.prepare(`INSERT OR REPLACE INTO deployment_hosts (id, domain, alias_label) SELECT id, domain, alias_label FROM deployments WHERE domain = ? AND state = 'ready'`).bind(domain),
    db.prepare('DELETE FROM deployments WHERE domain = ?').bind(domain),
  ];
}

/** Domains whose rows of `deployments` have not moved yet, at most `limit`. */
export async function domainsWithD1Deployments(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db.prepare('SELECT DISTINCT domain FROM deployments LIMIT ?').bind(limit).all<{ domain: string }>();
  return results.map((row) => row.domain);
}

/** Where a page of the list starts: after the deployment created at `created` with id `id`. */
export interface DeploymentsCursor {
  created: number;
  id: string;
}

/** Where stored bytes lie: a content hash (base64url SHA-256) at `offset` in `pack`. */
export interface BlobLocation {
  hash: string;
  pack: string;
  offset: number;
  size: number;
}

/**
 * Where `domain`'s stored hashes lay while D1 kept them (`site_blobs`, before issue 32 moved them
 * into each domain's coordinator, src/coordinator/records/blob-index.ts): read once, when they move.
 */
export async function blobsStoredIn(db: D1Database, domain: string): Promise<BlobLocation[]> {
  const { results } = await db.prepare('SELECT hash, pack, offset, size FROM site_blobs WHERE domain = ?').bind(domain).all<BlobLocation>();
  return results;
}

/** Deletes `domain`'s rows of `site_blobs`, once they moved. */
export function forgetBlobsOf(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM site_blobs WHERE domain = ?').bind(domain);
}

/** Domains whose rows of `site_blobs` have not moved yet, at most `limit`. */
export async function domainsWithD1Blobs(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db.prepare('SELECT DISTINCT domain FROM site_blobs LIMIT ?').bind(limit).all<{ domain: string }>();
  return results.map((row) => row.domain);
}
