import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { requireScope } from '../auth/middleware';
import { ownedByAnotherUser } from '../deploy/deploy-site';
import { Problem } from '../http/problem';
import { notImplemented, resource } from '../http/resource';
import { httpDate, parseHttpDate, parseTimestamp, timestamp } from '../http/time';
import { type ConfigurationsClock, getSite, listConfigurations } from '../storage/sites';
import { domainParam } from './domain-param';

export const configurations = new Hono<AppEnv>();

const second = (ms: number) => Math.floor(ms / 1000) * 1000;

/**
 * Whether the client's copy is current. `If-None-Match` wins over `If-Modified-Since`
 * (RFC 9110 §13.2.2). An HTTP-date has whole seconds only: when the latest change shares
 * its second with the change before it, a response stamped with that second may predate
 * the latest change, so that second never earns a 304.
 */
function isUnchanged(request: Request, clock: ConfigurationsClock, etag: string): boolean {
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  }
  const ifModifiedSince = request.headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const precise = parseTimestamp(ifModifiedSince);
  if (precise !== undefined) return clock.modified <= precise;
  const since = parseHttpDate(ifModifiedSince);
  if (since === undefined) return false;
  const changed = second(clock.modified);
  if (changed !== since) return changed < since;
  return second(clock.previous) !== changed;
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

resource(configurations, '/v2/sites/:domain/configuration', {
  GET: [
    requireScope('global_read', 'deploy'),
    async (c) => {
      const domain = domainParam(c);
      const site = await getSite(c.env.DB, domain);
      if (!site) throw new Problem('site-not-found', `No site is hosted at ${domain}.`);
      const { userId, scopes } = c.get('principal');
      if (!scopes.has('global_read') && site.userId !== userId) throw ownedByAnotherUser(domain);
      return c.json({
        modified: timestamp(site.configurationModified),
        domain,
        configuration: site.configuration,
      });
    },
  ],
  PUT: [notImplemented('PUT /v2/sites/<domain>/configuration')],
  PATCH: [notImplemented('PATCH /v2/sites/<domain>/configuration')],
});
