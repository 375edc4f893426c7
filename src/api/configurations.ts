import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { requestClient } from '../content/label-checks';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { purgeNotice } from './purge-notice';
import { ifNoneMatchMatches, settledLastModified, wholeSecond } from '../http/conditional';
import { readJsonBody } from '../http/json-body';
import { resource } from '../http/resource';
import type { ConfigurationRecord } from '../common/api-types';
import { httpDate, parseHttpDate, parseTimestamp, timestamp } from '../http/time';
import { type ConfigurationsClock, type SiteRecord, listConfigurations } from '../storage/sites-table';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const configurations = new Hono<AppEnv>();

/**
 * Whether the client's copy is current. `If-None-Match` wins over `If-Modified-Since`
 * (RFC 9110 §13.2.2). The ETag names the exact state, so it matches until the next change. A
 * copy stamped with the latest change's second was served once that second was over (see
 * settledLastModified), so it holds every change; one stamped earlier may lack one.
 */
function isUnchanged(request: Request, clock: ConfigurationsClock, etag: string): boolean {
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null) return ifNoneMatchMatches(ifNoneMatch, etag);
  const ifModifiedSince = request.headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const precise = parseTimestamp(ifModifiedSince);
  if (precise !== undefined) return clock.modified <= precise;
  const since = parseHttpDate(ifModifiedSince);
  return since !== undefined && since >= wholeSecond(clock.modified);
}

resource(configurations, '/v2/configurations', {
  GET: [
    requireScope('global_read'),
    async (c) => {
      const { clock, records } = await listConfigurations(c.env.DB);
      const etag = `"configurations-${clock.modified}"`;
      const headers: Record<string, string> = { etag, 'cache-control': 'private, no-cache' };
      if (clock.modified > 0) headers['last-modified'] = httpDate(settledLastModified(clock.modified, clock.readAt));
      if (isUnchanged(c.req.raw, clock, etag)) return c.body(null, 304, headers);
      return c.json(
        records.map((record): ConfigurationRecord => ({
          domain: record.domain,
          modified: timestamp(record.modified),
          configuration: record.configuration,
        })),
        200,
        headers,
      );
    },
  ],
});

/** The configuration record: `{modified, domain, configuration}` (docs/api.md). */
function configurationRecord(site: SiteRecord): ConfigurationRecord {
  return { modified: timestamp(site.configurationModified), domain: site.domain, configuration: site.configuration };
}

resource(configurations, '/v2/sites/:domain/configuration', {
  GET: [
    requireScope('global_read', 'deploy'),
    async (c) => c.json(configurationRecord(await readableSite(c, domainParam(c)))),
  ],
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const configuration = await readJsonBody(c.req.raw, 'application/json');
      const site = await siteCoordinator(c.env, domain, purgeNotice(c)).editConfiguration(domain, c.get('principal').userId, { replace: configuration }, requestClient(c.req.raw));
      return c.json(configurationRecord(site));
    },
  ],
  PATCH: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const patch = await readJsonBody(c.req.raw, 'application/merge-patch+json');
      const site = await siteCoordinator(c.env, domain, purgeNotice(c)).editConfiguration(domain, c.get('principal').userId, { patch }, requestClient(c.req.raw));
      return c.json(configurationRecord(site));
    },
  ],
});
