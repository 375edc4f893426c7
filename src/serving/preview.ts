/**
 * A kept deployment served on its own host, `<id>.<PREVIEW_HOSTNAME>`, live or not: a deploy
 * looked at before it goes live, or an old one before a rollback. Previews are never indexed
 * (`X-Robots-Tag: noindex`). A deployment never changes, so its record is kept in the location's
 * cache like a file index: collecting a deployment purges its record everywhere, and an unpublish
 * those of all the site's deployments (a `purge-previews` follow-up), so a preview stops at once.
 * On a miss, D1's directory (src/storage/deployment-hosts.ts) names the deployment's domain, and
 * the domain's coordinator, which keeps its deployments, answers the record.
 *
 * An alias host, `<alias>--<site part>.<PREVIEW_HOSTNAME>`, serves the newest ready deployment
 * with that alias (src/content/label-checks.ts), a branch's stable preview. Which one that is
 * changes with every aliased deploy, so it is asked of the domain's coordinator on each request:
 * previews are looked at by a few people, and a deploy's alias must serve it on the very next
 * request. Which domain a label names never changes (the label is made of the domain's hash), so
 * the location keeps that, and asks the directory once.
 */
import type { Env } from '../platform/env';
import { defaultLocation, edgeKeys, immutable, liveRecordMaxAgeSeconds } from '../coordinator/edge/edge-cache';
import { liveSite } from '../coordinator/edge/freshness';
import { settingsOf } from '../platform/settings';
import { siteCoordinator } from '../coordinator/coordinator-client';
import type { DeploymentRecord } from '../storage/deployments-table';
import { domainOfAlias, domainOfDeployment } from '../storage/deployment-hosts';
import { type Deployment, withheld } from '../storage/sites-table';
import { hostOptionsOf } from './host-options';
import { noAliasedDeployment, noDeploymentHosted, serverError } from './pages';
import { type ServedDeployment, answerWith } from './serve';
import { hostAccessOf } from './protection-gate';

/** What a preview host names: a deployment by its id, or the newest with an alias by the alias's label. */
export type PreviewName = { id: string } | { aliasLabel: string };

/** What a host under the preview host names (`<id>.<PREVIEW_HOSTNAME>`, `<alias>--<site part>.<PREVIEW_HOSTNAME>`), if anything. */
export function previewNameOf(hostname: string, previewHostname: string): PreviewName | undefined {
  const suffix = `.${previewHostname}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const label = hostname.slice(0, -suffix.length);
  // Ids are letters and digits; an alias's label is the only one with "--".
  if (/^[a-z0-9]+$/.test(label)) return { id: label };
  if (/^[a-z0-9][a-z0-9-]*--[a-z0-9-]*[a-z0-9]$/.test(label) && label.length <= 63) return { aliasLabel: label };
  return undefined;
}

interface PreviewRecord {
  /** Its site's: whose live record says whether an operator suspended it. */
  domain: string;
  /** Null for a deployment of host options alone. */
  deployment: Deployment | null;
  configuration: Record<string, unknown>;
}

export function servePreview(request: Request, url: URL, env: Env, ctx: ExecutionContext, name: PreviewName, location: Cache = defaultLocation()): Promise<Response> {
  const lookUp = async (): Promise<ServedDeployment | undefined> => {
    const record = 'id' in name ? await previewRecord(env, ctx, name.id, location) : await aliasedRecord(env, ctx, name.aliasLabel, location);
    if (!record) return undefined;
    const site = await liveSite(env, ctx, record.domain, location);
    const traffic = site ? { site: { domain: record.domain, claim: site.created }, host: 'id' in name ? ('preview' as const) : ('alias' as const) } : undefined;
    const access = hostAccessOf(env, site, `${'id' in name ? name.id : name.aliasLabel}.${settingsOf(env).previewHostname}`, true);
    return { deployment: record.deployment, host: hostOptionsOf(record.configuration), suspension: withheld(site), traffic, access };
  };
  const nothingHere = () => ('id' in name ? noDeploymentHosted(name.id) : noAliasedDeployment(name.aliasLabel));
  return answerWith(request, url, env, ctx, location, lookUp, nothingHere)
    .catch(serverError)
    .then((response) => {
      response.headers.set('x-robots-tag', 'noindex');
      return response;
    });
}

/** The deployment `id` names, from the location's cache, else its coordinator (stored in the location after the answer). */
async function previewRecord(env: Env, ctx: ExecutionContext, id: string, location: Cache): Promise<PreviewRecord | undefined> {
  const key = edgeKeys.deployment(settingsOf(env).edge, id);
  const cached = await location.match(key);
  if (cached) return cached.json<PreviewRecord>();
  const domain = await domainOfDeployment(env.DB, id);
  const kept = async () => (domain === null ? null : siteCoordinator(env, domain).deployment(domain, id));
  const stored = await kept();
  if (stored?.state !== 'ready') return undefined;
  const record = previewRecordOf(stored);
  const response = Response.json(record, { headers: { 'cache-control': `max-age=${liveRecordMaxAgeSeconds}` } });
  ctx.waitUntil(storeUnlessCollected(location, key, response, kept));
  return record;
}

/**
 * Stores a preview's record, then asks its coordinator again: a collection (or an unpublish) that
 * committed since the record was read purged it everywhere, maybe before this write landed, so a
 * deployment no longer kept has its record taken back. Either the purge comes after the write and
 * deletes it, or the question comes after the purge and sees the deployment gone.
 */
async function storeUnlessCollected(location: Cache, key: string, response: Response, kept: () => Promise<DeploymentRecord | null>): Promise<void> {
  await location.put(key, response);
  if ((await kept())?.state !== 'ready') await location.delete(key);
}

/** The newest ready deployment with the alias whose host label is `label`, from its coordinator. */
async function aliasedRecord(env: Env, ctx: ExecutionContext, label: string, location: Cache): Promise<PreviewRecord | undefined> {
  const domain = await aliasDomain(env, ctx, label, location);
  const stored = domain === null ? null : await siteCoordinator(env, domain).aliased(domain, label);
  return stored ? previewRecordOf(stored) : undefined;
}

/** The domain `label` names, from the location's cache (for good: the label is made of the domain), else the directory. */
async function aliasDomain(env: Env, ctx: ExecutionContext, label: string, location: Cache): Promise<string | null> {
  const key = edgeKeys.aliasDomain(settingsOf(env).edge, label);
  const cached = await location.match(key);
  if (cached) return cached.text();
  const domain = await domainOfAlias(env.DB, label);
  if (domain !== null) ctx.waitUntil(location.put(key, new Response(domain, { headers: { 'cache-control': immutable } })));
  return domain;
}

function previewRecordOf(stored: DeploymentRecord): PreviewRecord {
  const { indexKey } = stored;
  return {
    domain: stored.domain,
    deployment:
      indexKey === null
        ? null
        : { id: stored.id, created: stored.created, indexKey, packs: stored.packs, fileCount: stored.fileCount, totalBytes: stored.totalBytes },
    configuration: stored.configuration,
  };
}
