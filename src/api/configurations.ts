import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { requireScope } from '../auth/middleware';
import { siteCoordinator, unwrap } from '../deploy/site-coordinator';
import { ifNoneMatchMatches, wholeSecond } from '../http/conditional';
import { readJsonBody } from '../http/json-body';
import { resource } from '../http/resource';
import { httpDate, parseHttpDate, parseTimestamp, timestamp } from '../http/time';
import { type ConfigurationsClock, type SiteRecord, listConfigurations } from '../storage/sites';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const configurations = new Hono<AppEnv>();

/**
 * Whether the client's copy is current. `If-None-Match` wins over `If-Modified-Since`
 * (RFC 9110 §13.2.2). An HTTP-date has whole seconds only: when the latest change shares
 * its second with the change before it, a response stamped with that second may predate
 * the latest change, so that second never earns a 304.
 */
function isUnchanged(request: Request, clock: ConfigurationsClock, etag: string): boolean {
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null) return ifNoneMatchMatches(ifNoneMatch, etag);
  const ifModifiedSince = request.headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const precise = parseTimestamp(ifModifiedSince);
  if (precise !== undefined) return clock.modified <= precise;
  const since = parseHttpDate(ifModifiedSince);
  if (since === undefined) return false;
  const changed = wholeSecond(clock.modified);
  if (changed !== since) return changed < since;
  return wholeSecond(clock.previous) !== changed;
}

resource(configurations, '/v2/configurations', {
  GET: [
    requireScope('global_read'),
    async (c) => {
      const { clock, records } = await listConfigurations(c.env.DB);
      const etag = `"configurations-${clock.modified}"`;
      const headers: Record<string, string> = { etag, 'cache-control': 'private, no-cache' };
      if (clock.modified > 0) headers['last-modified'] = httpDate(clock.modified);
      if (isUnchanged(c.req.raw, clock, etag)) return c.body(null, 304, headers);
      return c.json(
        records.map((record) => ({
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

/** The configuration record: the spec's `{modified, domain, configuration}`. */
function configurationRecord(site: SiteRecord) {
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
      const site = unwrap(await siteCoordinator(c.env, domain).editConfiguration(domain, c.get('principal').userId, { replace: configuration }));
      return c.json(configurationRecord(site));
    },
  ],
  PATCH: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const patch = await readJsonBody(c.req.raw, 'application/merge-patch+json');
      const site = unwrap(await siteCoordinator(c.env, domain).editConfiguration(domain, c.get('principal').userId, { patch }));
      return c.json(configurationRecord(site));
    },
  ],
});
