import { clientHeader } from '../../src/common/deployment-labels';
import { type ApiError, apiErrorOf } from '../../src/common/received-problem';
import { currentToken } from './session';

/** Listeners told when the server refuses the token (401), so the page can ask for a new one. */
const unauthorizedListeners = new Set<(error: ApiError) => void>();
export function onUnauthorized(listener: (error: ApiError) => void): void {
  unauthorizedListeners.add(listener);
}

/**
 * The signed-in user's token, and the dashboard's name in `Sitehost-Client`: the deployments it
 * makes are listed as the dashboard's.
 */
export function authorizationHeader(): Record<string, string> {
  const token = currentToken();
  return { [clientHeader]: 'dashboard', ...(token ? { authorization: `Bearer ${token}` } : {}) };
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
  if (!response.ok) {
    const error = await apiErrorOf(response);
    if (error.status === 401) for (const listener of unauthorizedListeners) listener(error);
    throw error;
  }
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
