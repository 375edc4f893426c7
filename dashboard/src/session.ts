/** The bearer token, kept for this tab only (session storage): closing the tab signs out. */
const TOKEN_KEY = 'sitehost.token';

export function currentToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export interface TokenClaims {
  sub?: string;
  scopes: string[];
  expires?: Date;
}

/**
 * What the token says about its holder, for display only: the server verifies tokens, the page
 * merely reads them (a JWT's payload is base64url JSON). Undefined when it is not a JWT.
 */
export function readClaims(token: string): TokenClaims | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
    const listed = Array.isArray(claims.permissions) ? claims.permissions : Array.isArray(claims.scp) ? claims.scp : [];
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : listed.map(String);
    return {
      sub: typeof claims.sub === 'string' ? claims.sub : undefined,
      scopes,
      expires: typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : undefined,
    };
  } catch {
    return undefined;
  }
}
