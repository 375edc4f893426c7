/**
 * What `GET /dashboard/config.json` answers: shared by the Worker and the page (dashboard/src),
 * so it depends on nothing of either. Public values only, never a secret.
 */

/** The OpenID Connect public client the page signs in with (authorization code flow with PKCE). */
export interface OpenIdConfig {
  issuer: string;
  clientId: string;
  /** Sent as `audience` so that Auth0-style providers issue a JWT access token for this API. */
  audience: string;
  scope: string;
}

export interface PageConfig {
  /** The API's own hostnames, which no site may take (the page validates domains with them). */
  apiHostnames: readonly string[];
  openId: OpenIdConfig | null;
}
