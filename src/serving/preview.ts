/**
 * A kept deployment served on its own host, `<id>.<PREVIEW_HOSTNAME>`, live or not: a deploy
 * looked at before it goes live, or an old one before a rollback. Previews are never indexed
 * (`X-Robots-Tag: noindex`). A deployment never changes, so its record is kept in the location's
 * cache like a file index: collecting a deployment purges its record everywhere, and an unpublish
 * those of all the site's deployments (a `purge-previews` follow-up), so a preview stops at once.
 */
import type { Env } from '../platform/env';
import { defaultLocation, edgeKeys, liveRecordMaxAgeSeconds } from '../coordinator/edge-cache';
import { liveSite } from '../coordinator/freshness';
import { settingsOf } from '../platform/settings';
import { getDeploymentById } from '../storage/deployments';
import type { Deployment } from '../storage/sites';
import { hostOptionsOf } from './host-options';
import { noDeploymentHosted, serverError } from './pages';
import { type ServedDeployment, answerWith } from './serve';

/** The deployment id a preview host names (`<id>.<PREVIEW_HOSTNAME>`, one label), if it is one. */
export function previewIdOf(hostname: string, previewHostname: string): string | undefined {
  const suffix = `.${previewHostname}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const id = hostname.slice(0, -suffix.length);
  return /^[a-z0-9]+$/.test(id) ? id : undefined;
}

interface PreviewRecord {
  /** Its site's: whose live record says whether an operator suspended it. */
  domain: string;
  /** Null for a deployment of host options alone. */
  deployment: Deployment | null;
  configuration: Record<string, unknown>;
}

export function servePreview(request: Request, url: URL, env: Env, ctx: ExecutionContext, id: string, location: Cache = defaultLocation()): Promise<Response> {
  const lookUp = async (): Promise<ServedDeployment | undefined> => {
    const record = await previewRecord(env, ctx, id, location);
    if (!record) return undefined;
    const site = await liveSite(env, ctx, record.domain, location);
    return { deployment: record.deployment, host: hostOptionsOf(record.configuration), suspension: site?.suspension ?? null };
  };
  return answerWith(request, url, env, ctx, location, lookUp, () => noDeploymentHosted(id))
    .catch(serverError)
    .then((response) => {
      response.headers.set('x-robots-tag', 'noindex');
      return response;
    });
}

/** The deployment `id` names, from the location's cache, else D1 (stored in the location after the answer). */
async function previewRecord(env: Env, ctx: ExecutionContext, id: string, location: Cache): Promise<PreviewRecord | undefined> {
  const key = edgeKeys.deployment(settingsOf(env).edge, id);
  const cached = await location.match(key);
  if (cached) return cached.json<PreviewRecord>();
  const stored = await getDeploymentById(env.DB, id);
  if (!stored || stored.state !== 'ready') return undefined;
  const { indexKey } = stored;
  const record: PreviewRecord = {
    domain: stored.domain,
    deployment:
      indexKey === null
        ? null
        : { id: stored.id, created: stored.created, indexKey, packs: stored.packs, fileCount: stored.fileCount, totalBytes: stored.totalBytes },
    configuration: stored.configuration,
  };
  const response = Response.json(record, { headers: { 'cache-control': `max-age=${liveRecordMaxAgeSeconds}` } });
  ctx.waitUntil(location.put(key, response));
  return record;
}
