import { maxPathLength } from './path-length';
import { Problem } from './problem';

export { maxPathLength };

/** A request path, decoded once and normalised: what is looked up in the site's own file index. */
export interface RequestPath {
  /** Decoded segments in Unicode NFC, without empty, `.` or `..` segments. */
  segments: string[];
  /** True when the path names a directory: it ends with `/` (the root `/` does). */
  directory: boolean;
  /** False when the path as sent had dot segments, empty segments (`//`) or backslashes: `formatPath` is its normal form. */
  normal: boolean;
}

const controlCharacter = /[\u0000-\u001f\u007f]/;

/**
 * Decodes the path once and resolves it the way a file system would, clamped at the root:
 * `%2e%2e`, `..`, `//` and backslashes (`%5c`) never climb out of the site, because only the
 * segments that remain are ever looked up, and only in the site's own index. A path that is
 * not valid percent-encoded UTF-8 or holds a control character (NUL...) is a 400; one longer
 * than `maxPathLength` is 414 URI Too Long (RFC 9110 §15.5.15).
 */
export function parseRequestPath(pathname: string): RequestPath {
  if (pathname.length > maxPathLength) {
    throw new Problem('uri-too-long', `The request path is longer than ${maxPathLength} bytes.`, {
      extensions: { limit: 'MAX_PATH_LENGTH', value: maxPathLength },
    });
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new Problem('invalid-path', 'The request path is not valid percent-encoded UTF-8.');
  }
  if (controlCharacter.test(decoded)) {
    throw new Problem('invalid-path', 'The request path contains a control character.');
  }
  return resolveSegments(decoded);
}

function resolveSegments(decoded: string): RequestPath {
  const parts = decoded.normalize('NFC').replaceAll('\\', '/').split('/');
  const segments: string[] = [];
  let normal = !decoded.includes('\\');
  parts.forEach((part, at) => {
    if (part === '..') segments.pop();
    else if (part !== '' && part !== '.') segments.push(part);
    // The leading '' of `/a` and the trailing '' of `/a/` are the path's own; any other is `//`.
    if ((part === '' && at !== 0 && at !== parts.length - 1) || part === '.' || part === '..') normal = false;
  });
  const last = parts.at(-1);
  return { segments, directory: segments.length === 0 || last === '' || last === '.' || last === '..', normal };
}

/** One path segment as it may appear in a URL: characters a path allows stay as they are. */
export function encodePathSegment(segment: string): string {
  return encodeURI(segment).replace(/[?#]/g, encodeURIComponent);
}

/** The path as a URL path: `/a/b`, or `/a/b/` for a directory. */
export function formatPath(segments: readonly string[], directory: boolean): string {
  const path = `/${segments.map(encodePathSegment).join('/')}`;
  return directory && segments.length > 0 ? `${path}/` : path;
}

const formatted = new WeakMap<RequestPath, string>();

/** `formatPath` of a request path, computed once however many rules match against it. */
export function formattedPath(path: RequestPath): string {
  let text = formatted.get(path);
  if (text === undefined) {
    text = formatPath(path.segments, path.directory);
    formatted.set(path, text);
  }
  return text;
}

const decoded = new WeakMap<RequestPath, string>();

/**
 * The path decoded, `/a b/c` (a directory's with its trailing `/`), computed once however many
 * templates read it: what templates are matched against. Its `/` are the segment boundaries
 * only, as no decoded segment holds one.
 */
export function decodedPath(path: RequestPath): string {
  let text = decoded.get(path);
  if (text === undefined) {
    text = `/${path.segments.join('/')}${path.directory && path.segments.length > 0 ? '/' : ''}`;
    decoded.set(path, text);
  }
  return text;
}

/** A site-relative path from a configuration value (`/dist/`, `./404.html`), clamped like a request path. */
export function normaliseSitePath(value: string): string {
  return resolveSegments(value).segments.join('/');
}

/** `folder/path` for site-relative paths, either of which may be '' (the top). */
export function joinSitePath(folder: string, path: string): string {
  if (folder === '') return path;
  return path === '' ? folder : `${folder}/${path}`;
}
