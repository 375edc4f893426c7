import { uriReference } from '../http/uri-reference';
import type { FileEntry } from '../storage/file-index';
import { type HostOptions, isScriptUrl } from './host-options';
import { type RequestPath, formatPath, joinSitePath } from './request-path';
import type { SiteFiles } from './site-files';

export type Resolution =
  | { type: 'file'; entry: FileEntry; status: number }
  | { type: 'redirect'; location: string; status: number }
  | { type: 'not-found' };

/** Where a redirect that the site's own layout calls for (trailing slashes) sends the browser. */
const layoutRedirectStatus = 308;

/**
 * What answers a GET for `path`: the host's redirects first, in order; then the file, the
 * path with each extension, the directory (its trailing-slash form, its index.html); then
 * the fallbacks. A 2xx fallback stands in for a page only: `wantsPage` (src/serving/page-request.ts)
 * says whether the request asks for one; a 4xx or 5xx fallback answers any miss, its status
 * telling the truth. Lookups only ever touch this site's index, under its root.
 */
export function resolve(path: RequestPath, search: string, host: HostOptions, files: SiteFiles, wantsPage: boolean): Resolution {
  // `directories.resolve` (default true): a path sent with dot segments or `//` is sent to its normal form first.
  if (!path.normal && host.normaliseDirectoryPaths) {
    return { type: 'redirect', location: formatPath(path.segments, path.directory) + search, status: layoutRedirectStatus };
  }
  const redirect = host.redirects.first(path);
  if (redirect) {
    const target = redirect.rule.to.expand(redirect.values);
    // A variable can carry a script URL in (`/go/{+to}`): that is never sent as a Location.
    if (isScriptUrl(target)) return { type: 'not-found' };
    // The query goes along, unless the target sets its own.
    return { type: 'redirect', location: uriReference(target.includes('?') ? target : target + search), status: redirect.rule.status };
  }

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

  for (const fallback of host.fallbacks) {
    if (fallback.status < 300 && !wantsPage) continue;
    const entry = files.byPath.get(joinSitePath(host.root, fallback.path));
    if (entry) return { type: 'file', entry, status: fallback.status };
  }
  return { type: 'not-found' };
}

function fileOrExtension(key: string, host: HostOptions, files: SiteFiles): FileEntry | undefined {
  if (key === '') return undefined;
  const file = files.byPath.get(key);
  if (file) return file;
  for (const extension of host.extensions) {
    const entry = files.byPath.get(key + extension);
    if (entry) return entry;
  }
  return undefined;
}
