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

/** Copies `response` (asset responses are immutable) with the dashboard's security headers. */
export function withSecurityHeaders(response: Response, providerOrigins: readonly string[]): Response {
  const secured = new Response(response.body, response);
  secured.headers.set('content-security-policy', contentSecurityPolicy(providerOrigins));
  secured.headers.set('x-content-type-options', 'nosniff');
  secured.headers.set('x-frame-options', 'DENY');
  secured.headers.set('referrer-policy', 'no-referrer');
  secured.headers.set('cross-origin-opener-policy', 'same-origin');
  // The files change with every build and carry no content hash: revalidate them (ETag) each time.
  secured.headers.set('cache-control', 'no-cache');
  return secured;
}
