/**
 * D1 access to a site's kept deployments, and to where its stored content hashes lay before they
 * moved into its coordinator (schema/migrations/0005_deployments.sql, 0010_deployment_labels.sql). All times are epoch milliseconds.
 */
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
  message: string | null;
  /** Null for a deployment made before clients were recorded. */
  client: DeploymentClient | null;
  alias: string | null;
  /** The first label of the alias's host (src/content/label-checks.ts). */
  aliasLabel: string | null;
  /** Made without going live, even if made live later. */
  preview: boolean;
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
  };
}

const columns =
  'id, domain, created, created_by, source, state, file_count, total_bytes, index_key, packs, configuration, manifest_key, live_until, message, client, alias, alias_label, preview';
const values = '?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18';

/** `statement` with `deployment` bound to `values`. */
function boundTo(statement: D1PreparedStatement, deployment: DeploymentRecord, ...more: unknown[]): D1PreparedStatement {
  return statement.bind(
    deployment.id,
    deployment.domain,
    deployment.created,
    deployment.createdBy,
    deployment.source,
    deployment.state,
    deployment.fileCount,
    deployment.totalBytes,
    deployment.indexKey,
    JSON.stringify(deployment.packs),
    JSON.stringify(deployment.configuration),
    deployment.manifestKey,
    deployment.liveUntil,
    deployment.message,
    deployment.client,
    deployment.alias,
    deployment.aliasLabel,
    deployment.preview ? 1 : 0,
    ...more,
  );
}

/** Inserts `deployment`, or replaces the one with its id (an incremental deploy turning ready). */
export function putDeployment(db: D1Database, deployment: DeploymentRecord): D1PreparedStatement {
  return boundTo(db.prepare(`INSERT OR REPLACE INTO deployments (${columns}) VALUES (${values})`), deployment);
}

/**
 * Inserts the uploading `deployment` while its site has fewer than `max` others uploading that
 * began after `since` (one statement: two requests cannot both take the last place); answers
 * whether it did.
 */
export async function insertUploading(db: D1Database, deployment: DeploymentRecord, max: number, since: number): Promise<boolean> {
  const statement = db.prepare(
    `INSERT INTO deployments (${columns}) SELECT ${values}
     WHERE (SELECT COUNT(*) FROM deployments WHERE domain = ?2 AND state = 'uploading' AND created > ?20) < ?19`,
  );
  const { meta } = await boundTo(statement, deployment, max, since).run();
  return meta.changes === 1;
}

/** When the oldest deployment of `domain` still uploading began, of those that began after `since`. */
export async function oldestUploading(db: D1Database, domain: string, since: number): Promise<number | null> {
  return db
    .prepare(`SELECT MIN(created) AS created FROM deployments WHERE domain = ? AND state = 'uploading' AND created > ?`)
    .bind(domain, since)
    .first<number | null>('created');
}

/** Records that the deployment `id` stopped being live at `at`: another went live. */
export function endLive(db: D1Database, id: string, at: number): D1PreparedStatement {
  return db.prepare('UPDATE deployments SET live_until = ? WHERE id = ?').bind(at, id);
}

/** Adds `pack` to an uploading deployment's packs, so that it is kept with it. */
export function addUploadedPack(db: D1Database, id: string, pack: string): D1PreparedStatement {
  return db.prepare(`UPDATE deployments SET packs = json_insert(packs, '$[#]', ?2) WHERE id = ?1`).bind(id, pack);
}

export async function getDeployment(db: D1Database, domain: string, id: string): Promise<DeploymentRecord | null> {
  const row = await db.prepare('SELECT * FROM deployments WHERE domain = ? AND id = ?').bind(domain, id).first<DeploymentRow>();
  return row ? toRecord(row) : null;
}

/** Any site's deployment by its id alone, as a preview host names it. */
export async function getDeploymentById(db: D1Database, id: string): Promise<DeploymentRecord | null> {
  const row = await db.prepare('SELECT * FROM deployments WHERE id = ?').bind(id).first<DeploymentRow>();
  return row ? toRecord(row) : null;
}

/** The newest ready deployment whose alias host's first label is `label`, as an alias host names it. */
export async function latestAliased(db: D1Database, label: string): Promise<DeploymentRecord | null> {
  const row = await db
    .prepare(`SELECT * FROM deployments WHERE alias_label = ? AND state = 'ready' ORDER BY created DESC, id DESC LIMIT 1`)
    .bind(label)
    .first<DeploymentRow>();
  return row ? toRecord(row) : null;
}

/** Every deployment of `domain`, uploading ones too, newest first: what the kept window is drawn from. */
export async function deploymentsOf(db: D1Database, domain: string): Promise<DeploymentRecord[]> {
  const { results } = await db
    .prepare('SELECT * FROM deployments WHERE domain = ? ORDER BY created DESC, id DESC')
    .bind(domain)
    .all<DeploymentRow>();
  return results.map(toRecord);
}

/** Where a page of the list starts: after the deployment created at `created` with id `id`. */
export interface DeploymentsCursor {
  created: number;
  id: string;
}

/** Ready deployments of `domain`, newest first, after `cursor`; at most `limit`. */
export async function listReadyDeployments(
  db: D1Database,
  domain: string,
  limit: number,
  cursor?: DeploymentsCursor,
): Promise<DeploymentRecord[]> {
  // No cursor: later than every deployment.
  const after = cursor ?? { created: Number.MAX_SAFE_INTEGER, id: '' };
  const { results } = await db
    .prepare(
      `SELECT * FROM deployments WHERE domain = ?1 AND state = 'ready' AND (created < ?2 OR (created = ?2 AND id < ?3))
       ORDER BY created DESC, id DESC LIMIT ?4`,
    )
    .bind(domain, after.created, after.id, limit)
    .all<DeploymentRow>();
  return results.map(toRecord);
}

export function deleteDeployments(db: D1Database, ids: readonly string[]): D1PreparedStatement {
  return db.prepare('DELETE FROM deployments WHERE id IN (SELECT value FROM json_each(?))').bind(JSON.stringify(ids));
}

export function deleteDeploymentsOf(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM deployments WHERE domain = ?').bind(domain);
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
 * into each domain's coordinator, src/coordinator/blob-index.ts): read once, when they move.
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
