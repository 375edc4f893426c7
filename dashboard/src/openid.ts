import * as oauth from 'oauth4webapi';
import type { OpenIdConfig } from './page-config';

/** What the page remembers between leaving for the provider and coming back. */
const PENDING_KEY = 'sitehost.openid.pending';

interface Pending {
  state: string;
  verifier: string;
}

/** Plain-HTTP issuers are allowed only on loopback (a local test provider); oauth4webapi refuses them otherwise. */
function requestOptions(issuer: URL): { [oauth.allowInsecureRequests]?: boolean } {
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

async function discover(config: OpenIdConfig): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(config.issuer);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(issuer) });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** The page itself receives the authorization response (`/?code=...&state=...`). */
function redirectUri(): string {
  return `${location.origin}/`;
}

/** Leaves for the provider's sign-in page: authorization code flow with PKCE, as a public client (no secret). */
export async function startSignIn(config: OpenIdConfig): Promise<void> {
  const server = await discover(config);
  if (!server.authorization_endpoint) throw new Error(`${config.issuer} publishes no authorization endpoint.`);
  const pending: Pending = { state: oauth.generateRandomState(), verifier: oauth.generateRandomCodeVerifier() };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(server.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', config.scope);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  // Auth0 issues a JWT access token for an API only when asked for that API's audience.
  url.searchParams.set('audience', config.audience);
  location.assign(url);
}

/** Whether this page load is the provider sending the person back. */
export function isSignInResponse(url: URL): boolean {
  return url.searchParams.has('state') && (url.searchParams.has('code') || url.searchParams.has('error'));
}

/** Exchanges the authorization code for an access token (the API's bearer token). */
export async function finishSignIn(config: OpenIdConfig, url: URL): Promise<string> {
  const saved = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!saved) throw new Error('This sign-in was not started from this tab; please sign in again.');
  const pending = JSON.parse(saved) as Pending;
  const server = await discover(config);
  const client: oauth.Client = { client_id: config.clientId };
  const parameters = oauth.validateAuthResponse(server, client, url, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(server, client, oauth.None(), parameters, redirectUri(), pending.verifier, requestOptions(new URL(config.issuer)));
  const result = await oauth.processAuthorizationCodeResponse(server, client, response);
  return result.access_token;
}
