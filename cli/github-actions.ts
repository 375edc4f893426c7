/**
 * Credentials from a GitHub Actions job with `permissions: id-token: write` and no stored secret:
 * the job's OIDC ID token (for the API's origin as audience) traded at `POST /v2/oidc/github` for
 * a short-lived token of the sites that trust the job (docs/api.md, "Trusted deploys").
 */
import type { OidcExchange } from '../src/common/api-types.ts';
import { ApiClient } from './api.ts';
import { CliError } from './errors.ts';

/** Whether this is a job that may ask GitHub for an ID token. */
export function inGithubActions(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}

/** The job's ID token for `audience`, from the runner's endpoint, as actions/core's getIDToken asks. */
async function idTokenFor(audience: string, env: NodeJS.ProcessEnv): Promise<string> {
  const url = new URL(env.ACTIONS_ID_TOKEN_REQUEST_URL!);
  url.searchParams.set('audience', audience);
  let answer: Response;
  try {
    answer = await fetch(url, { headers: { authorization: `Bearer ${env.ACTIONS_ID_TOKEN_REQUEST_TOKEN}`, accept: 'application/json' } });
  } catch (error) {
    throw new CliError('server', `Cannot reach GitHub Actions' ID token endpoint: ${(error as Error).message}`, { cause: error });
  }
  const body = (await answer.json().catch(() => null)) as { value?: unknown } | null;
  if (!answer.ok || typeof body?.value !== 'string') {
    throw new CliError('auth', `GitHub Actions gave no ID token (${answer.status}): does the job have \`permissions: id-token: write\`?`);
  }
  return body.value;
}

/** A token for `origin` from the job's identity: its ID token exchanged for `domain` (absent: the sites trusting it). */
export async function exchangeGithubIdToken(origin: string, env: NodeJS.ProcessEnv, domain?: string): Promise<string> {
  const idToken = await idTokenFor(env.SITEHOST_OIDC_AUDIENCE || new URL(origin).origin, env);
  // The exchange sends no Authorization: the ID token in the body is the credential.
  const api = new ApiClient({ origin, token: '' });
  const exchanged = await api.json<OidcExchange>('/v2/oidc/github', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(domain ? { token: idToken, domain } : { token: idToken }),
  });
  console.error(`Deploying as GitHub Actions: a token for ${exchanged.sites.join(', ')} until ${exchanged.expiresAt} UTC.`);
  return exchanged.token;
}
