import { log } from '../platform/log';

/** How long a provider's discovery document is trusted before it is read again. */
const ttlMs = 10 * 60 * 1000;
const byIssuer = new Map<string, { origins: string[]; expires: number }>();

/**
 * The origins the page talks to when it signs in with `issuer`: the issuer's own (discovery)
 * and those of its token and userinfo endpoints, which may be other hosts (Google's token
 * endpoint is). Read from the provider's discovery document and cached in the isolate; the
 * issuer's origin alone when the document cannot be read.
 */
export async function providerOrigins(issuer: string): Promise<string[]> {
  const cached = byIssuer.get(issuer);
  if (cached && cached.expires > Date.now()) return cached.origins;
  const origins = new Set([new URL(issuer).origin]);
  try {
    const discovery = new URL('.well-known/openid-configuration', issuer.endsWith('/') ? issuer : `${issuer}/`);
    const response = await fetch(discovery, { headers: { accept: 'application/json' } });
    if (response.ok) {
      const document = (await response.json()) as Record<string, unknown>;
      for (const endpoint of [document.token_endpoint, document.userinfo_endpoint]) {
        if (typeof endpoint === 'string' && URL.canParse(endpoint)) origins.add(new URL(endpoint).origin);
      }
    }
  } catch (error) {
    log.error('The discovery document could not be read', { issuer, error });
  }
  const result = [...origins];
  byIssuer.set(issuer, { origins: result, expires: Date.now() + ttlMs });
  return result;
}
