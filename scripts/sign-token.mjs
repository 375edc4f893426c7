// Signs a token as this service's own issuer does (HS256 with AUTH_SECRET): what `npm run token`
// prints, and what the benchmarks and the black-box tests sign their requests with.
import { SignJWT } from 'jose';

/**
 * A JWT for `user` holding `scope` (space-separated scopes), valid for `ttl` (jose's form: `1h`,
 * `30d`) from now, issued now, with wrangler.toml's issuer and audience unless told otherwise.
 * Types: ./sign-token.d.mts.
 */
export function signToken({ user, scope, secret, ttl = '1h', issuer = 'sitehost', audience = 'sitehost' }) {
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(new TextEncoder().encode(secret));
}
