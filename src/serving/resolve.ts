import { uriReference } from '../http/uri-reference';
import type { FileEntry } from '../storage/file-index';
import { type HostOptions, isScriptUrl } from './host-options';
import { type RequestPath, formatPath, joinSitePath, parseRequestPath } from '../http/request-path';
import type { SiteFiles } from './site-files';
import { type FileRedirectRule, type RuleRequest, firstRedirect } from '../rules/compiled-rules';
import type { PathMatch } from '../rules/path-rules';
import type { TemplateValues } from '../rules/path-template';
import { type TargetTemplate, leavesSite } from '../rules/target-template';
import { rulesFileNames, rulesFilePath } from '../rules/deployment-rules';

export type Resolution =
  | { type: 'file'; entry: FileEntry; status: number }
  | { type: 'redirect'; location: string; status: number }
  | { type: 'not-found' };

/** Where a redirect that the site's own layout calls for (trailing slashes) sends the browser. */
const layoutRedirectStatus = 308;

/**
 * What answers a GET for `path`: the rules of the deployment's `_redirects` first (a rule that is
 * not forced with `!` only where no file answers the path), then the host's redirects, in order;
 * then the file, the path with each extension, the directory (its trailing-slash form, its
 * index.html); then the fallbacks. A 2xx fallback stands in for a page only: `wantsPage`
 * (src/serving/page-request.ts) says whether the request asks for one; a 4xx or 5xx fallback
 * answers any miss, its status telling the truth. Lookups only ever touch this site's index,
 * under its root. `request` carries what the file's conditions read (none: rules with
 * conditions never apply).
 */
export function resolve(path: RequestPath, search: string, host: HostOptions, files: SiteFiles, wantsPage: boolean, request?: RuleRequest): Resolution {
  // `directories.resolve` (default true): a path sent with dot segments or `//` is sent to its normal form first.
  if (!path.normal && host.normaliseDirectoryPaths) {
    return { type: 'redirect', location: formatPath(path.segments, path.directory) + search, status: layoutRedirectStatus };
  }
  const fileRule = firstRedirect(files.rules, path, request, () => fileAt(path, host, files) !== undefined);
  if (fileRule) return applyFileRule(fileRule, search, host, files, () => fallback(host, files, wantsPage));
  const redirect = host.redirects.first(path);
  if (redirect) return redirectFor(redirect.rule.to, redirect.values, search, redirect.rule.status);

  const relative = path.segments.join('/');
  const key = joinSitePath(host.root, relative);
  const redirectTo = (directory: boolean): Resolution => ({
    type: 'redirect',
    location: formatPath(path.segments, directory) + search,
    status: layoutRedirectStatus,
  });
  const index = () => files.byPath.get(joinSitePath(key, 'index.html'));
  const { trailingSlash } = host;

  if (!path.directory) {
    const file = fileOrExtension(key, host, files);
    if (file) return { type: 'file', entry: file, status: 200 };
    if (files.directories.has(key)) {
      if (trailingSlash === 'always') return redirectTo(true);
      const entry = index();
      if (entry) return { type: 'file', entry, status: 200 };
    }
  } else if (files.directories.has(key)) {
    if (trailingSlash === 'never' && relative !== '') return redirectTo(false);
    const entry = index();
    if (entry) return { type: 'file', entry, status: 200 };
  } else if (trailingSlash === 'never' && relative !== '' && fileOrExtension(key, host, files)) {
    return redirectTo(false);
  }

  return fallback(host, files, wantsPage);
}

function fallback(host: HostOptions, files: SiteFiles, wantsPage: boolean): Resolution {
  for (const fallback of host.fallbacks) {
    if (fallback.status < 300 && !wantsPage) continue;
    const entry = files.byPath.get(joinSitePath(host.root, fallback.path));
    if (entry) return { type: 'file', entry, status: fallback.status };
  }
  return { type: 'not-found' };
}

function redirectFor(to: TargetTemplate, values: TemplateValues, search: string, status: number): Resolution {
  const target = to.expand(values);
  // A variable can carry a script URL or another origin in (`/go/{+to}`): that is never sent as a Location.
  if (isScriptUrl(target) || leavesSite(target)) return { type: 'not-found' };
  // The query goes along, unless the target sets its own.
  return { type: 'redirect', location: uriReference(target.includes('?') ? target : target + search), status };
}

/**
 * A `_redirects` rule: a 3xx redirects (the query goes along unless the rule read it, or the
 * target sets its own); a 200 serves the file at its target (a rewrite, the address unchanged),
 * and when that is missing the site's miss; a 404 or 410 serves its target page with its status.
 */
function applyFileRule({ rule, values }: PathMatch<FileRedirectRule>, search: string, host: HostOptions, files: SiteFiles, miss: () => Resolution): Resolution {
  if (rule.status >= 300 && rule.status < 400) return redirectFor(rule.to, values, rule.query ? '' : search, rule.status);
  let target: RequestPath | undefined;
  try {
    target = parseRequestPath(rule.to.expand(values).replace(/[?#].*$/s, ''));
  } catch {
    target = undefined;
  }
  const entry = target && fileAt(target, host, files);
  if (entry) return { type: 'file', entry, status: rule.status };
  return rule.status === 200 ? miss() : { type: 'not-found' };
}

/** The file a path names without any redirect: itself, with an extension, or its folder's index.html. */
function fileAt(path: RequestPath, host: HostOptions, files: SiteFiles): FileEntry | undefined {
  const key = joinSitePath(host.root, path.segments.join('/'));
  if (!path.directory) {
    const file = fileOrExtension(key, host, files);
    if (file) return file;
  }
  return files.directories.has(key) ? files.byPath.get(joinSitePath(key, 'index.html')) : undefined;
}

function fileOrExtension(key: string, host: HostOptions, files: SiteFiles): FileEntry | undefined {
  // The served root's `_redirects` and `_headers` are its rules, never a file to serve.
  if (key === '' || rulesFileNames.some((name) => rulesFilePath(host.root, name) === key)) return undefined;
  const file = files.byPath.get(key);
  if (file) return file;
  for (const extension of host.extensions) {
    const entry = files.byPath.get(key + extension);
    if (entry) return entry;
  }
  return undefined;
}
