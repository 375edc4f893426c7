import { SignJWT } from 'jose';
import { env, exports } from 'cloudflare:workers';
import { recordAnswer } from './seen-answers';

/** The AUTH_SECRET vitest.config.ts binds for the Worker under test. */
const testSecret = env.AUTH_SECRET!;

export interface TokenOptions {
  user?: string;
  scope?: string;
  issuer?: string;
  audience?: string;
  expiresIn?: string | number;
  secret?: string;
  /** Its `iat`, epoch seconds; now when absent. */
  issuedAt?: number;
}

/** A self-issued HS256 token like `npm run token` prints. */
export async function token(options: TokenOptions = {}): Promise<string> {
  return new SignJWT({ scope: options.scope ?? 'deploy' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.user ?? 'github|1')
    .setIssuer(options.issuer ?? 'sitehost')
    .setAudience(options.audience ?? 'sitehost')
    .setIssuedAt(options.issuedAt)
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(new TextEncoder().encode(options.secret ?? testSecret));
}

/** Sends a request to the Worker under test, as the API host unless the URL says otherwise; its answer is checked against the document (seen-answers.ts, documented-answers.ts). */
export async function call(pathOrUrl: string, init: RequestInit = {}): Promise<Response> {
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `http://localhost${pathOrUrl}`;
  const request = new Request(url, init);
  const response = await (exports as unknown as { default: Fetcher }).default.fetch(request);
  recordAnswer(request, response);
  return response;
}

export async function authorized(pathOrUrl: string, init: RequestInit = {}, options: TokenOptions = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${await token(options)}`);
  return call(pathOrUrl, { ...init, headers });
}

/**
 * `authorized`, through the Worker's fetch handler with `vars` over the bound env: settings a
 * test chooses. Durable Objects keep the bound env (test/support/deployments.ts swaps theirs).
 */
export async function authorizedWith(vars: Record<string, string>, pathOrUrl: string, init: RequestInit = {}, options: TokenOptions = {}): Promise<Response> {
  const [{ createExecutionContext }, { default: worker }] = await Promise.all([import('cloudflare:test'), import('../../src/index')]);
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${await token(options)}`);
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `http://localhost${pathOrUrl}`;
  const request = new Request(url, { ...init, headers }) as Request<unknown, IncomingRequestCfProperties>;
  return worker.fetch(request, { ...env, ...vars }, createExecutionContext());
}

export type SiteFiles = Record<string, string | Uint8Array>;

/** The multipart form a browser's directory upload sends. */
export function deployForm(files: SiteFiles = {}, configuration?: unknown): FormData {
  const form = new FormData();
  if (configuration !== undefined) {
    form.append('configuration', typeof configuration === 'string' ? configuration : JSON.stringify(configuration));
  }
  for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], path));
  return form;
}

export function deploy(domain: string, files: SiteFiles = {}, configuration?: unknown, options: TokenOptions = {}) {
  return authorized(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm(files, configuration) }, options);
}

export async function problemOf(response: Response): Promise<Record<string, unknown>> {
  if (response.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(`Expected a problem, got ${response.status} ${response.headers.get('content-type')}: ${await response.text()}`);
  }
  return response.json();
}
