/** A site with an owner, a deployer, a viewer and a trust policy, made through the API: what the access tests start from. */
import { expect } from 'vitest';
import type { DeployResult } from '../../src/common/api-types';
import { call, deployForm, token } from './client';

/** The users of one such site. */
export interface SiteCrew {
  owner: string;
  deployer: string;
  viewer: string;
}

export const json = (method: string, body: unknown, type = 'application/json'): RequestInit => ({ method, headers: { 'content-type': type }, body: JSON.stringify(body) });
export const trustPolicy = { repository: 'octo-org/site', repositoryId: '101', repositoryOwnerId: '202', workflow: '.github/workflows/deploy.yml' };

/** `init` to `path` with `secret` as its bearer. */
export async function send(path: string, init: RequestInit, secret: string): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${secret}`);
  return call(path, { ...init, headers });
}

/** `response`, once it is a success (its body named where it is not). */
export async function ok(response: Response): Promise<Response> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response;
}

/** A site of `crew.owner` with its deployer, its viewer and a trust policy; its live deployment's id. */
export async function siteWithMembers(domain: string, crew: SiteCrew): Promise<string> {
  const as = await token({ user: crew.owner });
  const deployed = await (await ok(await send(`/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'v1' }) }, as))).json<DeployResult>();
  await ok(await send(`/v2/sites/${domain}/members/${encodeURIComponent(crew.deployer)}`, json('PUT', { role: 'deployer' }), as));
  await ok(await send(`/v2/sites/${domain}/members/${encodeURIComponent(crew.viewer)}`, json('PUT', { role: 'viewer' }), as));
  await ok(await send(`/v2/sites/${domain}/trust/github`, json('PUT', trustPolicy), as));
  return deployed.deploymentId;
}
