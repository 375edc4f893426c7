/** The types of ./sign-token.mjs, for the TypeScript tests that import it. */
export interface TokenClaims {
  user: string;
  /** Space-separated scopes. */
  scope: string;
  secret: string;
  /** jose's form: `1h`, `30d`; default `1h`. */
  ttl?: string;
  issuer?: string;
  audience?: string;
}

export function signToken(claims: TokenClaims): Promise<string>;
