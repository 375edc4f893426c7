/** D1 access to site records. All times are epoch milliseconds. */
import type { SiteProtection } from '../protection/site-protection';
import { databaseNowMs } from './configurations-feed';

export interface Deployment {
  id: string;
  created: number;
  indexKey: string;
  /** R2 keys of the packs the deployment's files live in. */
  packs: string[];
  fileCount: number;
  totalBytes: number;
}

/** An operator's suspension of a site: why, and since when. */
export interface Suspension {
  reason: string;
  since: number;
}

export interface SiteRecord {
  domain: string;
  userId: string;
  created: number;
  modified: number;
  configuration: Record<string, unknown>;
  configurationModified: number;
  metadata: Record<string, string>;
  /** The live deployment (storage/deployments-table.ts), null before the first. */
  liveDeploymentId: string | null;
  /** The live deployment's files; null while it has none. */
  deployment: Deployment | null;
  /** Null unless an operator suspended the site. */
  suspension: Suspension | null;
  /** Null unless an operator suspended its owner (./user-suspensions.ts): then it answers 451 too, and its owner changes nothing. */
  userSuspension: Suspension | null;
  /** Who may open its hosts; null: the service's default for new sites (NEW_SITE_PREVIEWS). Absent from records cached before it existed. */
  protection?: SiteProtection | null;
}

interface SiteRow extends OwnerSuspensionColumns {
  domain: string;
  user_id: string;
  created: number;
  modified: number;
  configuration: string;
  configuration_modified: number;
  metadata: string;
  deployment_id: string | null;
  deployment_created: number | null;
  deployment_index_key: string | null;
  deployment_packs: string;
  file_count: number;
  total_bytes: number;
  suspension_reason: string | null;
  suspended_at: number | null;
  protection: string | null;
}

/** The owner's suspension in force, joined from user_suspensions (see `withOwnerSuspension`). */
interface OwnerSuspensionColumns {
  user_suspension_reason: string | null;
  user_suspended_at: number | null;
}

/** `FROM sites` with its owner's suspension in force, read in the same query. */
const withOwnerSuspension = `sites LEFT JOIN user_suspensions AS owner
  ON owner.user_id = sites.user_id AND owner.resumed_at IS NULL`;
const ownerSuspensionColumns = 'owner.reason AS user_suspension_reason, owner.suspended_at AS user_suspended_at';

function userSuspensionOf(row: OwnerSuspensionColumns): Suspension | null {
  return row.user_suspended_at === null ? null : { reason: row.user_suspension_reason ?? '', since: row.user_suspended_at };
}

function toRecord(row: SiteRow): SiteRecord {
  return {
    domain: row.domain,
    userId: row.user_id,
    created: row.created,
    modified: row.modified,
    configuration: JSON.parse(row.configuration),
    configurationModified: row.configuration_modified,
    metadata: JSON.parse(row.metadata),
    liveDeploymentId: row.deployment_id,
    deployment:
      row.deployment_index_key === null
        ? null
        : {
            id: row.deployment_id!,
            created: row.deployment_created!,
            indexKey: row.deployment_index_key!,
            packs: JSON.parse(row.deployment_packs),
            fileCount: row.file_count,
            totalBytes: row.total_bytes,
          },
    suspension: suspensionOf(row),
    userSuspension: userSuspensionOf(row),
    protection: row.protection === null ? null : (JSON.parse(row.protection) as SiteProtection),
  };
}

export function suspensionOf(row: Pick<SiteRow, 'suspension_reason' | 'suspended_at'>): Suspension | null {
  return row.suspended_at === null ? null : { reason: row.suspension_reason ?? '', since: row.suspended_at };
}

/**
 * Why a site is withheld from its visitors (451), if it is: its own suspension, or its owner's.
 * Both come with the live record serving reads anyway (the owner's joined into it), so the check
 * costs a visitor nothing, wherever they are.
 */
export function withheld(site: Pick<SiteRecord, 'suspension' | 'userSuspension'> | null): Suspension | null {
  // A record cached before user suspensions existed has no userSuspension.
  return site?.suspension ?? site?.userSuspension ?? null;
}

/** A site `userId` holds at `now` with nothing live yet: no deployment, no host options, no metadata, no suspension (a suspended user claims nothing). */
export function emptySite(domain: string, userId: string, now: number): SiteRecord {
  return { domain, userId, created: now, modified: now, configuration: {}, configurationModified: now, metadata: {}, liveDeploymentId: null, deployment: null, suspension: null, userSuspension: null, protection: null };
}

export async function getSite(db: D1Database, domain: string): Promise<SiteRecord | null> {
  const row = await db.prepare(`SELECT sites.*, ${ownerSuspensionColumns} FROM ${withOwnerSuspension} WHERE domain = ?`).bind(domain).first<SiteRow>();
  return row ? toRecord(row) : null;
}

/** Who owns a site, and whether it or its owner is suspended: what access to it depends on (src/coordinator/access/access.ts). */
export interface SiteOwner {
  userId: string;
  suspension: Suspension | null;
  userSuspension: Suspension | null;
  /** The live host options' `root`, as written (a deploy reads the rules files of the root it will be served under). */
  root?: unknown;
}

/** How a site's owner is read, with the owner's suspension (getSiteOwner; members-table.ts's siteAccess adds the requester's role). */
export const siteOwnerColumns = `sites.user_id, sites.created, sites.suspension_reason, sites.suspended_at, json_extract(sites.configuration, '$.root') AS root, ${ownerSuspensionColumns}`;
export const siteOwnerFrom = withOwnerSuspension;
export type SiteOwnerRow = Pick<SiteRow, 'user_id' | 'created' | 'suspension_reason' | 'suspended_at' | keyof OwnerSuspensionColumns> & { root: unknown };

/** A site's owner as D1 holds it, and when they claimed the domain: with `userId`, which claim of the domain the site is. */
export type ClaimedSite = SiteOwner & { created: number };

export function siteOwnerOf(row: SiteOwnerRow): ClaimedSite {
  return { userId: row.user_id, created: row.created, suspension: suspensionOf(row), userSuspension: userSuspensionOf(row), root: row.root };
}

export async function getSiteOwner(db: D1Database, domain: string): Promise<ClaimedSite | null> {
  const row = await db.prepare(`SELECT ${siteOwnerColumns} FROM ${siteOwnerFrom} WHERE domain = ?`).bind(domain).first<SiteOwnerRow>();
  return row && siteOwnerOf(row);
}

export interface SiteSummary {
  domain: string;
  userId: string;
  modified: number;
}

/** Which of a user's sites to list: those whose domain sorts after `after`, at most `limit` (all without). */
export interface SitesRange {
  after?: string;
  limit?: number;
}

/** A user's sites in domain order. */
export async function listSitesOf(db: D1Database, userId: string, { after = '', limit }: SitesRange = {}): Promise<SiteSummary[]> {
  const { results } = await db
    .prepare('SELECT domain, user_id AS userId, modified FROM sites WHERE user_id = ? AND domain > ? ORDER BY domain LIMIT ?')
    // SQLite reads a negative LIMIT as none.
    .bind(userId, after, limit ?? -1)
    .all<SiteSummary>();
  return results;
}

/**
 * Statements that record a change of the configurations: the clock ticks by the database's clock,
 * strictly later than the last change and no earlier than any read before it (nor than the
 * change's own `modified`). When the change is `domain`'s new configuration (none: an unpublish),
 * its record takes the clock's value as its `modified`: the latest `modified` a client read is the
 * clock until the next change, so an If-Modified-Since taken from it earns 304s, and one taken
 * from any older record never hides a later change. `stampedConfigurationTime` reads it back.
 */
export function tickConfigurationsClock(db: D1Database, modified: number, domain?: string): D1PreparedStatement[] {
  const tick = db.prepare(`UPDATE clocks SET modified = max(modified + 1, ?, ${databaseNowMs}) WHERE name = 'configurations'`).bind(modified);
  if (domain === undefined) return [tick];
  const stamp = db
    .prepare(`UPDATE sites SET configuration_modified = (SELECT modified FROM clocks WHERE name = 'configurations') WHERE domain = ? RETURNING configuration_modified AS ${stampedColumn}`)
    .bind(domain);
  return [tick, stamp];
}

const stampedColumn = 'configuration_stamped';

/** The `modified` that a batch's `tickConfigurationsClock` gave a site's configuration, if it gave one. */
export function stampedConfigurationTime(results: readonly D1Result[]): number | undefined {
  for (const { results: rows } of results) {
    const stamped = (rows?.[0] as Record<string, unknown> | undefined)?.[stampedColumn];
    if (typeof stamped === 'number') return stamped;
  }
  return undefined;
}

export function upsertSite(db: D1Database, site: SiteRecord): D1PreparedStatement {
  const d = site.deployment;
  return db
    .prepare(
      `INSERT INTO sites (domain, user_id, created, modified, configuration, configuration_modified, metadata,
         deployment_id, deployment_created, deployment_index_key, deployment_packs, file_count, total_bytes)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
       ON CONFLICT (domain) DO UPDATE SET modified = ?4, configuration = ?5, configuration_modified = ?6,
         metadata = ?7, deployment_id = ?8, deployment_created = ?9, deployment_index_key = ?10,
         deployment_packs = ?11, file_count = ?12, total_bytes = ?13`,
    )
    .bind(
      site.domain,
      site.userId,
      site.created,
      site.modified,
      JSON.stringify(site.configuration),
      site.configurationModified,
      JSON.stringify(site.metadata),
      site.liveDeploymentId,
      d?.created ?? null,
      d?.indexKey ?? null,
      JSON.stringify(d?.packs ?? []),
      d?.fileCount ?? 0,
      d?.totalBytes ?? 0,
    );
}

/** Statement that suspends a site (`suspension`) or lifts its suspension (null). */
export function setSuspension(db: D1Database, domain: string, suspension: Suspension | null): D1PreparedStatement {
  return db
    .prepare('UPDATE sites SET suspension_reason = ?2, suspended_at = ?3 WHERE domain = ?1')
    .bind(domain, suspension?.reason ?? null, suspension?.since ?? null);
}

/** Statement that stores who may open a site's hosts. */
export function setProtection(db: D1Database, domain: string, protection: SiteProtection): D1PreparedStatement {
  return db.prepare('UPDATE sites SET protection = ?2 WHERE domain = ?1').bind(domain, JSON.stringify(protection));
}

export function deleteSite(db: D1Database, domain: string): D1PreparedStatement {
  return db.prepare('DELETE FROM sites WHERE domain = ?').bind(domain);
}

/** Statement that names `changeId` the last change committed to `domain`: run in the change's own batch. */
export function recordSiteChange(db: D1Database, domain: string, changeId: string): D1PreparedStatement {
  return db
    .prepare('INSERT INTO site_changes (domain, change_id) VALUES (?1, ?2) ON CONFLICT (domain) DO UPDATE SET change_id = ?2')
    .bind(domain, changeId);
}

/** The last change committed to `domain`, or null before the first. */
export async function lastSiteChange(db: D1Database, domain: string): Promise<string | null> {
  return db.prepare('SELECT change_id FROM site_changes WHERE domain = ?').bind(domain).first<string>('change_id');
}
