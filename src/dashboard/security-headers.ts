/**
 * The dashboard's Content-Security-Policy: scripts, styles and connections from this origin
 * only (no inline code), plus the identity provider's origins (discovery, token request) when
 * OpenID Connect is configured. It can never be framed.
 */
function contentSecurityPolicy(providerOrigins: readonly string[]): string {
  const provider = providerOrigins.map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${provider}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Adds the dashboard's security headers to `response`, a response of its own making. */
export function withSecurityHeaders(response: Response, providerOrigins: readonly string[]): Response {
  const headers = response.headers;
  headers.set('content-security-policy', contentSecurityPolicy(providerOrigins));
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-frame-options', 'DENY');
  headers.set('referrer-policy', 'no-referrer');
  headers.set('cross-origin-opener-policy', 'same-origin');
  // The files change with every build and carry no content hash: revalidate them (ETag) each time.
  headers.set('cache-control', 'no-cache');
  return response;
}
