const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where a hosted site can be opened. Locally (the dashboard itself on localhost) the Worker
 * serves `<domain>.localhost:<port>`, which browsers resolve to loopback; elsewhere the site
 * is at its own domain over HTTPS.
 */
export function liveSiteUrl(domain: string, page: Location = location): string {
  if (LOCAL_HOSTS.has(page.hostname) || page.hostname.endsWith('.localhost')) {
    return `${page.protocol}//${domain}.localhost${page.port ? `:${page.port}` : ''}/`;
  }
  return `https://${domain}/`;
}
