import { Accept } from '@remix-run/headers/accept';
import type { HostOptions } from './host-options';
import type { RequestPath } from '../http/request-path';

/** What a browser loads as a page (`Sec-Fetch-Dest`); scripts, styles, images, fetch() and the rest are not pages. */
const pageDestinations = new Set(['document', 'iframe', 'frame']);
/** Extensions of pages whatever the host options say. */
const pageExtensions = ['.html', '.htm'];

/**
 * Whether a request that matches no file asks for a page, so that a 2xx fallback (a
 * single-page application's shell) may stand in for it. Anything else that is missing is a
 * 404: a script or an image answered with HTML and 200 breaks in ways no one can debug.
 * A page is asked for when all of these hold:
 * - the last segment has no extension, or `.html`, `.htm` or one of the host's `fallback.extensions`;
 * - a browser that says what it loads (`Sec-Fetch-Dest`) loads a document or a frame;
 * - `Accept`, when sent, accepts `text/html` (by name or by a wildcard, as curl's does).
 */
export function wantsPage(request: Request, path: RequestPath, host: HostOptions): boolean {
  if (!isPageExtension(extensionOf(path), host)) return false;
  const destination = request.headers.get('sec-fetch-dest');
  if (destination !== null && !pageDestinations.has(destination.toLowerCase())) return false;
  const accept = request.headers.get('accept');
  return accept === null || Accept.from(accept).accepts('text/html');
}

function isPageExtension(extension: string, host: HostOptions): boolean {
  if (extension === '' || pageExtensions.includes(extension)) return true;
  return host.extensions.some((listed) => listed.toLowerCase() === extension);
}

/** The last segment's extension with its dot, lower-cased; '' for none (a directory, `README`, `.env`). */
function extensionOf(path: RequestPath): string {
  const name = path.directory ? '' : (path.segments.at(-1) ?? '');
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}
