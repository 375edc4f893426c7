// The API's paths for one site, each part percent-encoded as one or more path segments.

/** `/v2/sites/<domain><rest>`, the domain as one segment. */
export function sitePath(domain: string, rest = ''): string {
  return `/v2/sites/${encodeURIComponent(domain)}${rest}`;
}

/** A site-relative file path (`/css/a.css`) as URL path segments, each percent-encoded. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * `/v2/sites/<domain>/files/<path>`, each segment of `path` encoded and empty ones dropped; a
 * directory's path ends with a slash (the root's is `/files/`).
 */
export function filesPath(domain: string, path: string, kind: 'file' | 'directory' = 'file'): string {
  const segments = path.split('/').filter(Boolean).map(encodeURIComponent);
  const trailing = kind === 'directory' && segments.length > 0 ? '/' : '';
  return sitePath(domain, `/files/${segments.join('/')}${trailing}`);
}
