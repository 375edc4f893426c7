import type { Env } from '../env';
import { Problem } from '../http/problem';
import { liveSite } from '../site/freshness';
import type { FileEntry } from '../storage/file-index';
import type { Deployment } from '../storage/sites';
import { revalidate } from './cache-control';
import { fileResponse } from './file-response';
import { type HostOptions, hostOptionsOf } from './host-options';
import { wantsPage } from './page-request';
import { fileNotFound, noSiteHosted, serverError } from './pages';
import { type RequestPath, parseRequestPath } from './request-path';
import { resolve } from './resolve';
import { type SiteFiles, siteFilesOf } from './site-files';
import { manifestFilesOf, manifestOf } from './site-manifest';

const allow = 'GET, HEAD, OPTIONS';

/**
 * Answers a request whose Host is not an API host: the hosted site's face of the Worker.
 * The domain's coordinator holds the live site record in memory and leases it: the copy kept
 * here is served without asking again until its lease runs out, and no change goes live
 * before every lease on the record it replaces has run out, so a new deploy is visible on
 * the next request, without a D1 query and without a call per request. The coordinator sends
 * the record only when it changed since the copy kept here. The deployment's file index is
 * cached in the isolate by deployment id, the compiled host options with the kept record.
 * Serving a file is then one ranged R2 read, or none for a small file read lately (kept by
 * content hash).
 */
export function serveSite(request: Request, url: URL, env: Env, ctx: ExecutionContext, domain: string): Promise<Response> {
  return answerSite(request, url, env, ctx, domain).catch(serverError);
}

async function answerSite(request: Request, url: URL, env: Env, ctx: ExecutionContext, domain: string): Promise<Response> {
  let path: RequestPath;
  try {
    path = parseRequestPath(url.pathname);
  } catch (error) {
    // Refused with the site's CORS headers, so that a script on another origin can read why.
    const refusal = problemResponse(error);
    const site = await servedSite(env, ctx, domain);
    return site ? withCors(refusal, site.host) : refusal;
  }
  if (isReserved(path)) return fileNotFound();
  const site = await servedSite(env, ctx, domain);
  if (!site) return noSiteHosted(domain);
  const files = await siteFilesOf(env.FILES, site.deployment);
  const response = await answer(request, url, path, env, site.host, files).catch(problemResponse);
  return withSiteHeaders(response, path, site.host);
}

/** The domain's live deployment and compiled host options, when it has files to serve. */
async function servedSite(env: Env, ctx: ExecutionContext, domain: string): Promise<{ deployment: Deployment; host: HostOptions } | undefined> {
  const site = await liveSite(env, ctx, domain);
  if (!site?.deployment || site.deployment.fileCount === 0) return undefined;
  return { deployment: site.deployment, host: hostOptionsOf(site.configuration) };
}

function problemResponse(error: unknown): Response {
  if (error instanceof Problem) return error.toResponse();
  throw error;
}

/** Reserved on every site for HTTP-01 certificate validation (src/certificates/challenge.ts answers it first). */
function isReserved(path: RequestPath): boolean {
  return path.segments[0] === '.well-known' && path.segments[1] === 'acme-challenge';
}

async function answer(request: Request, url: URL, path: RequestPath, env: Env, host: HostOptions, files: SiteFiles): Promise<Response> {
  if (request.method === 'OPTIONS') return preflight(request);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new Problem('method-not-allowed', `${request.method} is not allowed on a hosted site; use ${allow}.`, {
      headers: { allow },
    });
  }
  const resolution = resolve(path, url.search, host, files, wantsPage(request, path, host));
  if (resolution.type === 'not-found') return fileNotFound();
  if (resolution.type === 'redirect') {
    return new Response(null, {
      status: resolution.status,
      headers: { location: resolution.location, 'cache-control': revalidate },
    });
  }
  const response = await fileResponse(request, env.FILES, files, resolution.entry, resolution.status);
  if (response.status === 200 || response.status === 206) {
    const link = await preloadLinkFor(env.FILES, files, host, resolution.entry);
    if (link) response.headers.append('link', link);
  }
  return response;
}

/** CORS preflight, or a plain OPTIONS: which methods a site answers. */
function preflight(request: Request): Response {
  const headers = new Headers({ allow });
  if (request.headers.has('access-control-request-method')) {
    headers.set('access-control-allow-methods', allow);
    const asked = request.headers.get('access-control-request-headers');
    if (asked) headers.set('access-control-allow-headers', asked);
    headers.set('access-control-max-age', '86400');
    headers.set('vary', 'Access-Control-Request-Headers');
  }
  return new Response(null, { status: 204, headers });
}

async function preloadLinkFor(bucket: R2Bucket, files: SiteFiles, host: HostOptions, entry: FileEntry): Promise<string | undefined> {
  if (host.manifest.empty && host.manifestFile === undefined) return undefined;
  const manifest = await manifestOf(bucket, files, host);
  const path = host.root === '' ? entry.path : entry.path.slice(host.root.length + 1);
  return manifest.linkFor(manifestFilesOf(files, host.root), `/${path}`);
}

/** The host's CORS origin, on every answer of its site. */
function withCors(response: Response, host: HostOptions): Response {
  response.headers.set('access-control-allow-origin', host.allowOrigin);
  response.headers.set('access-control-expose-headers', 'ETag, Content-Range, Accept-Ranges, Link');
  return response;
}

/** Answers that serve a file: the only ones a site's `headers` apply to. */
const fileAnswers = new Set([200, 206, 304]);

/**
 * The host's CORS origin, and on answers that serve a file its `headers` that match the path,
 * with their values expanded. Redirects and errors get none: a rule meant for assets (a year
 * of immutable caching) must not make a miss stick in caches.
 */
function withSiteHeaders(response: Response, path: RequestPath, host: HostOptions): Response {
  const headers = withCors(response, host).headers;
  if (!fileAnswers.has(response.status)) return response;
  for (const { rule, values } of host.headers.all(path)) {
    for (const [name, fieldValues] of rule.fields) {
      headers.delete(name);
      for (const value of fieldValues) headers.append(name, value(values));
    }
  }
  return response;
}
