import { log } from '../platform/log';
import { noteBodyBytes } from './body-bytes';
import { revalidate } from './cache-control';

function page(status: number, title: string, message: string, cacheControl: string): Response {
  const body = `<!doctype html>\n<meta charset="utf-8">\n<title>${title}</title>\n<h1>${title}</h1>\n<p>${message}</p>\n`;
  const response = new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': cacheControl,
      'x-content-type-options': 'nosniff',
    },
  });
  return noteBodyBytes(response, new TextEncoder().encode(body).length);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The answer for a Host that is no deployed site. Not cached: the site may be deployed any moment. */
export function noSiteHosted(domain: string): Response {
  return page(404, 'No site here', `No site is hosted at ${escapeHtml(domain)}.`, 'no-store');
}

/** A preview host whose deployment does not exist, or was collected. */
export function noDeploymentHosted(id: string): Response {
  return page(404, 'No deployment here', `There is no kept deployment ${escapeHtml(id)}.`, 'no-store');
}

/** An alias host whose alias no kept deployment has. */
export function noAliasedDeployment(label: string): Response {
  return page(404, 'No deployment here', `No kept deployment has the alias of ${escapeHtml(label)}.`, 'no-store');
}

/**
 * Every answer of a site an operator suspended, and of its previews (RFC 7725), naming the service
 * that blocks it (`blockedBy`, its API origin). The reason is for the owner, in `GET .../info`,
 * not for visitors. Not cached: the suspension may be lifted any moment.
 */
export function siteSuspended(blockedBy: string): Response {
  const response = page(451, 'Unavailable for legal reasons', 'This site has been suspended by the operator of its hosting service.', 'no-store');
  response.headers.set('link', `<${blockedBy}>; rel="blocked-by"`);
  return response;
}

/** A path of a site that matches no file and no fallback. */
export function fileNotFound(): Response {
  return page(404, 'Not found', 'There is no page at this address.', revalidate);
}

/** An unexpected failure while serving a site: a page of ours (the error is logged), never the runtime's. */
export function serverError(error: unknown): Response {
  log.error('Serving a site failed', { error });
  return page(500, 'Server error', 'This page could not be served just now. Please try again.', 'no-store');
}
