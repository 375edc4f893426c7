import { currentToken } from './session';

/** A JSON Pointer into the request body and what is wrong there (the server's `errors`). */
export interface PointerError {
  pointer: string;
  message: string;
}

/** An RFC 9457 problem as the API sends it. */
export interface ProblemBody {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  errors?: PointerError[];
}

export class ApiError extends Error {
  constructor(readonly problem: ProblemBody) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
  }

  get status(): number {
    return this.problem.status;
  }
}

/** Turns an error answer into an ApiError; the API sends problem+json, anything else is wrapped. */
export function problemFrom(status: number, statusText: string, contentType: string | null, text: string): ApiError {
  if (contentType?.startsWith('application/problem+json') || contentType?.startsWith('application/json')) {
    try {
      const body = JSON.parse(text) as Partial<ProblemBody>;
      return new ApiError({ ...body, title: body.title ?? statusText, status });
    } catch {
      // Not JSON after all: fall through to the plain description.
    }
  }
  return new ApiError({ title: statusText || `HTTP ${status}`, status, detail: text.trim() || undefined });
}

/** Listeners told when the server refuses the token (401), so the page can ask for a new one. */
const unauthorizedListeners = new Set<(error: ApiError) => void>();
export function onUnauthorized(listener: (error: ApiError) => void): void {
  unauthorizedListeners.add(listener);
}

export function authorizationHeader(): Record<string, string> {
  const token = currentToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Calls the API as the signed-in user; JSON in and out, problems thrown as ApiError. */
export async function request<T = unknown>(method: string, path: string, body?: { json: unknown; type?: string } | { raw: Blob }): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorizationHeader() };
  let payload: BodyInit | undefined;
  if (body && 'json' in body) {
    headers['content-type'] = body.type ?? 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body) {
    headers['content-type'] = body.raw.type || 'application/octet-stream';
    payload = body.raw;
  }
  const response = await fetch(path, { method, headers, body: payload });
  const text = await response.text();
  if (!response.ok) {
    const error = problemFrom(response.status, response.statusText, response.headers.get('content-type'), text);
    if (error.status === 401) for (const listener of unauthorizedListeners) listener(error);
    throw error;
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** `/v2/sites/<domain>` with the domain as one path segment. */
export function sitePath(domain: string, rest = ''): string {
  return `/v2/sites/${encodeURIComponent(domain)}${rest}`;
}

/** A site-relative file path (`/css/a.css`) as URL path segments, each percent-encoded. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export interface Site {
  domain: string;
  userId: string;
  modified: string;
}

export type { DeployResult } from '../../src/deploy/deploy-result';

export interface ConfigurationRecord {
  domain: string;
  modified: string;
  configuration: unknown;
}

export type Listing =
  | { name: string; path: string; type: 'file'; size: number; contentType: string; etag: string; modified: string }
  | { name: string; path: string; type: 'directory' };

export interface SiteInfo {
  domain: string;
  userId: string;
  created: string;
  modified: string;
  deployment: { id: string; created: string; fileCount: number; totalBytes: number } | null;
  certificate?: { status: string; issued?: string | null; expires?: string | null; reason?: string | null } | null;
  metadata: Record<string, string>;
}
