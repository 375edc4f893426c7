import { describe, expect, it } from 'vitest';
import type { DeploymentRules, DeployResult } from '../../src/common/api-types';
import { authorized, deploy, problemOf } from '../support/client';
import { keepDeployments } from '../support/deployments';
import { begin, manifestOf } from '../support/incremental';

const rulesOf = (domain: string, id: string, user?: string, scope?: string) =>
  authorized(`/v2/sites/${domain}/deployments/${id}/rules`, {}, { ...(user ? { user } : {}), ...(scope ? { scope } : {}) });

const files = {
  'index.html': 'home',
  'new.html': 'new',
  _redirects: '# moved\n/old /new 301\n/blog/:slug /posts/:slug 200!\n/fr/* /fr/index.html 200 Language=fr\n',
  _headers: '/assets/*\n  Cache-Control: public, max-age=31536000\n  ! X-Frame-Options\n',
};
const configuration = {
  redirects: [{ from: '/docs', to: '/guide' }],
  headers: [{ fields: { 'X-Frame-Options': 'DENY' } }, { uri: '/{file}.html', fields: { 'X-Page': ['{file}', 'two'] } }],
};

describe('GET /v2/sites/<domain>/deployments/<id>/rules', () => {
  it("answers a deployment's rules from _redirects, _headers and its host options, in the order they apply", async () => {
    const domain = 'rules-view.example';
    const deployed = await (await deploy(domain, files, configuration)).json<DeployResult>();
    const response = await rulesOf(domain, deployed.deploymentId);
    expect(response.status).toBe(200);
    expect(await response.json<DeploymentRules>()).toEqual({
      deploymentId: deployed.deploymentId,
      redirects: [
        { source: '_redirects', from: '/old', to: '/new', status: 301, force: false },
        { source: '_redirects', from: '/blog/{slug}', to: '/posts/{+slug}', status: 200, force: true },
        { source: '_redirects', from: '/fr/{+splat}', to: '/fr/index.html', status: 200, force: false, languages: ['fr'] },
        { source: 'configuration', from: '/docs', to: '/guide', status: 308, force: true },
      ],
      headers: [
        { source: 'configuration', uri: null, fields: { 'X-Frame-Options': ['DENY'] }, detach: [] },
        { source: 'configuration', uri: '/{file}.html', fields: { 'X-Page': ['{file}', 'two'] }, detach: [] },
        { source: '_headers', uri: '/assets/{+splat}', fields: { 'Cache-Control': ['public, max-age=31536000'] }, detach: ['X-Frame-Options'] },
      ],
      // No fallback configured: the root 404.html answers misses.
      fallbacks: [{ source: 'default', status: 404, path: '/404.html' }],
    });
  });

  it('answers each kept deployment with its own rules, and none for a deployment without any', async () => {
    const domain = 'rules-kept.example';
    await keepDeployments(domain, 20, 30);
    const first = await (await deploy(domain, { 'index.html': 'one', _redirects: '/a /b' })).json<DeployResult>();
    const second = await (await deploy(domain, { 'index.html': 'two' })).json<DeployResult>();
    expect((await (await rulesOf(domain, first.deploymentId)).json<DeploymentRules>()).redirects).toEqual([{ source: '_redirects', from: '/a', to: '/b', status: 301, force: false }]);
    expect(await (await rulesOf(domain, second.deploymentId)).json<DeploymentRules>()).toEqual({
      deploymentId: second.deploymentId,
      redirects: [],
      headers: [],
      fallbacks: [{ source: 'default', status: 404, path: '/404.html' }],
    });
  });

  it("answers the fallbacks as serving tries them: the host options' by status, the root 404.html unless one names a 404 page", async () => {
    const domain = 'rules-fallbacks.example';
    await keepDeployments(domain, 20, 30);
    const shell = await (await deploy(domain, { 'index.html': 'app' }, { fallback: '/index.html' })).json<DeployResult>();
    expect((await (await rulesOf(domain, shell.deploymentId)).json<DeploymentRules>()).fallbacks).toEqual([
      { source: 'configuration', status: 200, path: '/index.html' },
      { source: 'default', status: 404, path: '/404.html' },
    ]);
    const pages = await (await deploy(domain, { 'index.html': 'app' }, { fallback: { 404: '/missing.html', 200: '/app.html', extensions: ['htm'] } })).json<DeployResult>();
    expect((await (await rulesOf(domain, pages.deploymentId)).json<DeploymentRules>()).fallbacks).toEqual([
      { source: 'configuration', status: 200, path: '/app.html' },
      { source: 'configuration', status: 404, path: '/missing.html' },
    ]);
  });

  it('is read as the deployment is: 404 for an unknown one, 403 for another user, 409 while it uploads', async () => {
    const domain = 'rules-guarded.example';
    const deployed = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    const unknown = await rulesOf(domain, 'a'.repeat(20));
    expect(unknown.status).toBe(404);
    expect((await problemOf(unknown)).detail).toContain(`keeps no deployment "${'a'.repeat(20)}"`);
    expect((await rulesOf(domain, deployed.deploymentId, 'github|2')).status).toBe(403);
    expect((await rulesOf(domain, deployed.deploymentId, 'github|2', 'global_read')).status).toBe(200);

    const uploading = await begin(domain, await manifestOf({ 'index.html': 'not sent yet' }));
    expect(uploading.status).toBe(201);
    const { id } = await uploading.json<{ id: string }>();
    const refused = await rulesOf(domain, id);
    expect(refused.status).toBe(409);
    expect((await problemOf(refused)).detail).toContain('still uploading');
  });
});
