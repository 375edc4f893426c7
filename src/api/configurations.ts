import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { requestClient } from '../content/label-checks';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { purgeNotice } from './purge-notice';
import { ifNoneMatchMatches, settledLastModified, wholeSecond } from '../http/conditional';
import { readJsonBody } from '../http/json-body';
import { resource } from '../http/resource';
import type { ConfigurationRecord } from '../common/api-types';
import { httpDate, parseHttpDate, parseTimestamp, timestamp } from '../http/time';
import type { SiteRecord } from '../storage/sites-table';
import { type ConfigurationsClock, changesSince, configurationsAfter, readConfigurationsClock } from '../storage/configurations-feed';
import { maxPageSize, nextPageLink, pageQuery } from '../http/page';
import { Problem } from '../http/problem';
import { checkCursor, cursorAt, sentCursor } from './configurations-cursor';
import { changeJson, recordJson, streamedConfigurations } from './configurations-list';
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

/** The validators and the cursor every answer of the list carries, 304s included. */
async function listHeaders(clock: ConfigurationsClock): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    etag: `"configurations-${clock.modified}"`,
    'cache-control': 'private, no-cache',
    'sitehost-cursor': await cursorAt(clock, clock.modified),
  };
  if (clock.modified > 0) headers['last-modified'] = httpDate(settledLastModified(clock.modified, clock.readAt));
  return headers;
}

/** `?since=`: the changes after a cursor, oldest first, a page at a time; the cursor to follow with next. */
async function changesAnswer(c: Context<AppEnv>, url: URL, since: string, limit = maxPageSize): Promise<Response> {
  // One more than asked tells whether another page follows.
  const sent = sentCursor(since);
  const { clock, changes } = await changesSince(c.env.DB, sent.position, limit + 1);
  // Checked against the clock read with the changes: one round trip to D1.
  await checkCursor(clock, sent);
  const page = changes.slice(0, limit);
  const next = await cursorAt(clock, changes.length > limit ? page.at(-1)!.modified : clock.modified);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'private, no-cache', 'sitehost-cursor': next };
  if (changes.length > limit) headers.link = `<${url.pathname}?${new URLSearchParams({ since: next, limit: String(limit) })}>; rel="next"`;
  return new Response(`{"changes":[${page.map(changeJson).join(',')}],"cursor":${JSON.stringify(next)}}`, { headers });
}

/** `?limit=`: one page of the records in domain order, with the `Link` to the next. */
async function pageAnswer(c: Context<AppEnv>, url: URL, headers: Record<string, string>, limit: number, cursor = ''): Promise<Response> {
  const records = await configurationsAfter(c.env.DB, cursor, limit + 1);
  const page = records.slice(0, limit);
  if (records.length > limit) headers.link = nextPageLink(url, limit, page.at(-1)!.domain);
  return new Response(`[${page.map(recordJson).join(',')}]`, { headers: { ...headers, 'content-type': 'application/json' } });
}

resource(configurations, '/v2/configurations', {
  GET: [
    requireScope('global_read'),
    async (c) => {
      const url = new URL(c.req.url);
      const { limit, cursor } = pageQuery(url);
      const since = url.searchParams.get('since');
      if (since !== null) {
        if (cursor !== undefined) throw new Problem('invalid-request', '`cursor` pages the list; the feed pages with `since` alone.');
        return changesAnswer(c, url, since, limit);
      }
      // One row answers a revalidation: no record is read before the validators are compared.
      const clock = await readConfigurationsClock(c.env.DB);
      const headers = await listHeaders(clock);
      if (isUnchanged(c.req.raw, clock, headers.etag!)) return c.body(null, 304, headers);
      if (limit !== undefined || cursor !== undefined) return pageAnswer(c, url, headers, limit ?? maxPageSize, cursor);
      return new Response(streamedConfigurations(c.env.DB), { headers: { ...headers, 'content-type': 'application/json' } });
    },
  ],
});

/** The configuration record: `{modified, domain, configuration}` (docs/api.md). */
function configurationRecord(site: SiteRecord): ConfigurationRecord {
  return { modified: timestamp(site.configurationModified), domain: site.domain, configuration: site.configuration };
}

resource(configurations, '/v2/sites/:domain/configuration', {
  GET: [
    requireSiteRead(),
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
