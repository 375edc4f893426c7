import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { defaultLocation } from '../coordinator/edge/edge-cache';
import { liveSite } from '../coordinator/edge/freshness';
import { settingsOf } from '../platform/settings';
import type { FileEntry } from '../storage/file-index';
import { type Deployment, type Suspension, withheld } from '../storage/sites-table';
import { revalidate } from './cache-control';
import { fileResponse } from './file-response';
import { type HeaderRule, type HostOptions, hostOptionsOf } from './host-options';
import type { TemplateValues } from '../rules/path-template';
import { type RuleRequest, conditionFields, preferredLanguage } from '../rules/compiled-rules';
import { mergedVary } from '../rules/header-fields';
import { wantsPage } from './page-request';
import { fileNotFound, noSiteHosted, serverError, siteSuspended } from './pages';
import { type RequestPath, parseRequestPath } from '../http/request-path';
import { resolve } from './resolve';
import { type HostAccess, admit, hostAccessOf, privately } from './protection-gate';
import { admitBasic } from './basic-auth-gate';
import { type FileStores, type SiteFiles, noFiles, siteFilesOf } from './site-files';
import { manifestFilesOf, manifestOf } from './site-manifest';
import { bodyBytesOf } from './body-bytes';
import type { HostKind, SiteKey } from '../traffic/batch';
import { countServed } from '../traffic/counting';

const allow = 'GET, HEAD, OPTIONS';

/**
 * Answers a request whose Host is not an API host: the hosted site's face of the Worker.
 * Everything it needs comes from the location's cache (docs/serving.md): the site's live
 * record (purged from every location by each change before the change answers), the
 * deployment's file index by deployment id and files by content hash, with the isolate's
 * memory as a small first level in front. A miss asks the site's coordinator, or R2.
 *
 * `location` is the cache of the location serving the request; tests and the edge bench pass
 * a named cache to emulate another location. Nothing a visitor sends chooses it.
 */
export function serveSite(request: Request, url: URL, env: Env, ctx: ExecutionContext, domain: string, location: Cache = defaultLocation()): Promise<Response> {
  return answerSite(request, url, env, ctx, domain, location).catch(serverError);
}

async function answerSite(request: Request, url: URL, env: Env, ctx: ExecutionContext, domain: string, location: Cache): Promise<Response> {
  return answerWith(request, url, env, ctx, location, () => servedSite(env, ctx, domain, location), () => noSiteHosted(domain));
}

/** What a site's requests are answered from: a deployment and its compiled host options. */
export interface ServedDeployment {
  /** Its files; null when it has none, only host options (a domain that only redirects, say). */
  deployment: Deployment | null;
  host: HostOptions;
  /** Its site's suspension, or its owner's, if an operator suspended either: every request is answered 451. */
  suspension: Suspension | null;
  /** The domain it is served on as the live site; none for a preview, where `_redirects` rules for a host never apply. */
  domain?: string;
  /** Who may open the host it is served on (./protection-gate.ts). */
  access: HostAccess;
  /** Whose traffic its answers count as (docs/analytics.md); none while its site's record is gone. */
  traffic?: { site: SiteKey; host: HostKind };
}

/**
 * Answers a request to a hosted site from what `lookUp` finds (the live deployment, or a
 * preview's), or with `nothingHere` when it finds none. A path that cannot be parsed is refused
 * with the site's CORS headers, so that a script on another origin can read why.
 */
export async function answerWith(
  request: Request,
  url: URL,
  env: Env,
  ctx: ExecutionContext,
  location: Cache,
  lookUp: () => Promise<ServedDeployment | undefined>,
  nothingHere: () => Response,
): Promise<Response> {
  let path: RequestPath;
  try {
    path = parseRequestPath(url.pathname);
  } catch (error) {
    const refusal = problemResponse(error);
    const site = await lookUp();
    return site ? withCors(refusal, site.host) : refusal;
  }
  if (isReserved(path)) return fileNotFound();
  const site = await lookUp();
  if (!site) return nothingHere();
  if (site.suspension) return siteSuspended(serviceOrigin(url, env));
  const admission = await admit(request, url, env, site.access, path);
  if ('answer' in admission) return admission.answer;
  const stores: FileStores = { bucket: env.FILES, location, edge: settingsOf(env).edge, waitUntil: (promise) => ctx.waitUntil(promise) };
  const files = site.deployment ? await siteFilesOf(stores, site.deployment) : noFiles;
  const basic = await admitBasic(request, env, files.rules, path, site.access.host);
  if ('answer' in basic) return basic.answer;
  const response = withSiteHeaders(await answer(request, url, path, stores, site, files).catch(problemResponse), path, site.host, files);
  if (admission.private) privately(response, 'Cookie');
  if (basic.private) privately(response, 'Authorization');
  if (site.traffic) countServed(env, ctx, request, url, { ...site.traffic, deployment: site.deployment?.id ?? '' }, { response, bytes: bodyBytesOf(response) });
  return response;
}

/** The domain's live deployment and compiled host options, when the domain is a published site: a domain claimed by a preview alone serves nothing. */
async function servedSite(env: Env, ctx: ExecutionContext, domain: string, location: Cache): Promise<ServedDeployment | undefined> {
  const site = await liveSite(env, ctx, domain, location);
  // A domain claimed by a preview alone serves nothing (unless suspended: then it says so).
  const suspension = withheld(site);
  if (!site || !(site.liveDeploymentId || suspension)) return undefined;
  const access = hostAccessOf(env, site, domain, false);
  return { deployment: site.deployment, host: hostOptionsOf(site.configuration), suspension, domain, access, traffic: { site: { domain, claim: site.created }, host: 'live' } };
}

/** The service's own origin, on its first API host, with the scheme and port the request came by. */
function serviceOrigin(url: URL, env: Env): string {
  return `${url.protocol}//${settingsOf(env).apiHostnames[0]}${url.port ? `:${url.port}` : ''}/`;
}

function problemResponse(error: unknown): Response {
  if (error instanceof Problem) return error.toResponse();
  throw error;
}

/** Reserved on every site for HTTP-01 certificate validation (src/certificates/challenge.ts answers it first). */
function isReserved(path: RequestPath): boolean {
  return path.segments[0] === '.well-known' && path.segments[1] === 'acme-challenge';
}

async function answer(request: Request, url: URL, path: RequestPath, stores: FileStores, site: ServedDeployment, files: SiteFiles): Promise<Response> {
  const { host } = site;
  if (request.method === 'OPTIONS') return preflight(request);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new Problem('method-not-allowed', `${request.method} is not allowed on a hosted site; use ${allow}.`, {
      headers: { allow },
    });
  }
  const resolution = resolve(path, url.search, host, files, wantsPage(request, path, host), ruleRequest(request, url, site.domain));
  if (resolution.type === 'not-found') return fileNotFound();
  if (resolution.type === 'redirect') {
    return new Response(null, {
      status: resolution.status,
      headers: { location: resolution.location, 'cache-control': revalidate },
    });
  }
  const response = await fileResponse(request, stores, files, resolution.entry, resolution.status);
  if (response.status === 200 || response.status === 206) {
    const link = await preloadLinkFor(stores, files, host, resolution.entry);
    if (link) response.headers.append('link', link);
  }
  return response;
}

/**
 * What the conditions of `_redirects` rules read from a request. `Accept-Language` is read only
 * when a rule has a `Language` condition: most sites have none, and every request comes here.
 */
function ruleRequest(request: Request, url: URL, domain: string | undefined): RuleRequest {
  const { cf } = request as { cf?: { country?: unknown } };
  let language: string | undefined | null = null;
  return {
    protocol: url.protocol,
    host: domain,
    query: url.searchParams,
    country: typeof cf?.country === 'string' ? cf.country : undefined,
    get language() {
      if (language === null) language = preferredLanguage(request.headers.get('accept-language'));
      return language;
    },
  };
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

async function preloadLinkFor(stores: FileStores, files: SiteFiles, host: HostOptions, entry: FileEntry): Promise<string | undefined> {
  if (host.manifest.empty && host.manifestFile === undefined) return undefined;
  const manifest = await manifestOf(stores, files, host);
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
 * The host's CORS origin, and on answers that serve a file the host's `headers` that match the
 * path, then the deployment's `_headers` rules (so a file's value replaces the option's, and its
 * `! Name` detaches what came before), with their values expanded. Redirects and errors get
 * none: a rule meant for assets (a year of immutable caching) must not make a miss stick in caches.
 * `Vary` keeps what the server chose by (`Accept-Encoding` on a compressed answer) beside the
 * site's values, and every answer on a path a `Language` or `Country` rule covers names what it reads.
 */
function withSiteHeaders(response: Response, path: RequestPath, host: HostOptions, files: SiteFiles): Response {
  const headers = withCors(response, host).headers;
  const serverVary = headers.get('vary');
  const byCondition = conditionFields(files.rules, path);
  if (fileAnswers.has(response.status)) {
    for (const { rule, values } of host.headers.all(path)) setFields(headers, rule.fields, values);
    for (const { rule, values } of files.rules.headers.all(path)) {
      for (const name of rule.detach) headers.delete(name);
      setFields(headers, rule.fields, values);
    }
  }
  if (serverVary !== null || byCondition.length > 0) headers.set('vary', mergedVary(headers.get('vary'), serverVary, ...byCondition));
  return response;
}

function setFields(headers: Headers, fields: HeaderRule['fields'], values: TemplateValues): void {
  for (const [name, fieldValues] of fields) {
    headers.delete(name);
    for (const value of fieldValues) headers.append(name, value(values));
  }
}
