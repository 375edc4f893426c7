// How hosted sites are reached, locally and on the web. Shared by the Worker (which serves
// `<domain>.localhost`), the CLI and the dashboard (which link to sites): it imports nothing,
// so Node runs it as the CLI's TypeScript and the dashboard's bundle takes it as it is.

const localSuffix = '.localhost';
const loopbackHostnames = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The site a Host names: locally `example.com.localhost` serves `example.com` (browsers resolve `*.localhost` to loopback). */
export function siteDomainOf(hostname: string): string {
  return hostname.endsWith(localSuffix) ? hostname.slice(0, -localSuffix.length) : hostname;
}

/**
 * Where a hosted site can be opened, seen from the service at `service` (the API's origin,
 * or a page it serves): a service on this machine serves `<domain>.localhost:<port>`;
 * elsewhere a site is at its own domain over HTTPS.
 */
export function siteUrl(service: Pick<URL, 'protocol' | 'hostname' | 'port'>, domain: string): string {
  const local = loopbackHostnames.has(service.hostname) || service.hostname.endsWith(localSuffix);
  return local ? `${service.protocol}//${domain}${localSuffix}${service.port ? `:${service.port}` : ''}/` : `https://${domain}/`;
}
