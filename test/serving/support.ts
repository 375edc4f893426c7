import { expect } from 'vitest';
import { type SiteFiles, call, deploy } from '../support/client';

/** Deploys a site and checks the deploy succeeded. */
export async function deployed(domain: string, files: SiteFiles, configuration?: unknown): Promise<void> {
  const response = await deploy(domain, files, configuration);
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Requests a path of a hosted site, as a browser does at `http://<domain>.localhost/`. */
export function site(domain: string, path: string, init: RequestInit = {}): Promise<Response> {
  return call(`http://${domain}.localhost${path}`, { redirect: 'manual', ...init });
}

/** A redirect with this status to this Location. */
export function expectRedirect(response: Response, status: number, location: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('location')).toBe(location);
}

export async function sha256Base64url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
