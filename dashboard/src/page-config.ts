import type { PageConfig } from '../../src/dashboard/contract';

export type { OpenIdConfig, PageConfig } from '../../src/dashboard/contract';

/** `GET /dashboard/config.json`: the API hostnames and, when configured, the OpenID Connect client. */
export async function loadPageConfig(): Promise<PageConfig> {
  const response = await fetch('/dashboard/config.json');
  if (!response.ok) throw new Error(`The dashboard's configuration could not be loaded (${response.status}).`);
  return response.json();
}
