import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentPage, DeployResult } from '../../src/common/api-types';
import { getSite } from '../../src/storage/sites-table';
import { authorized, call, deploy, deployForm } from '../support/client';
import { coordinatorOf, keepDeployments, storedObjects } from '../support/deployments';
import { liveFiles } from '../support/live-files';
import { unlabelled } from '../../src/content/label-checks';

async function list(domain: string, cursor?: string): Promise<DeploymentPage> {
  const response = await authorized(`/v2/sites/${domain}/deployments${cursor ? `?cursor=${cursor}` : ''}`);
  expect(response.status).toBe(200);
  return response.json();
}

async function served(domain: string, path = '/'): Promise<string> {
  return (await call(`http://${domain}${path}`)).text();
}

function activate(domain: string, id: string) {
  return authorized(`/v2/sites/${domain}/deployments/${id}/activate`, { method: 'POST' });
}

describe('deployments', () => {
  it('keeps every change that makes new content, newest first, the live one marked', async () => {
    const domain = 'history.example';
    await keepDeployments(domain, 20, 30);
    const first = await (await deploy(domain, { 'index.html': 'one' })).json<DeployResult>();
    await deploy(domain, { 'index.html': 'two' });
    await authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"fallback":"/index.html"}' });
    await authorized(`/v2/sites/${domain}/files/about.html`, { method: 'PUT', body: 'about' });
    await authorized(`/v2/sites/${domain}/files/about.html`, { method: 'DELETE' });

    const { deployments, next } = await list(domain);
    expect(next).toBeNull();
    expect(deployments.map((deployment) => deployment.source)).toEqual(['file-delete', 'file-put', 'configuration', 'deploy', 'deploy']);
    expect(deployments.map((deployment) => deployment.live)).toEqual([true, false, false, false, false]);
    expect(deployments.map((deployment) => deployment.fileCount)).toEqual([1, 2, 1, 1, 1]);
    // Each was taken off the air by the next, in order; the live one is on it.
    expect(deployments.map((deployment) => deployment.liveUntil === null)).toEqual([true, false, false, false, false]);
    const ends = deployments.slice(1).map((deployment) => deployment.liveUntil!);
    expect(ends).toEqual([...ends].sort().reverse());
    const oldest = deployments.at(-1)!;
    expect(oldest).toEqual({
      id: first.deploymentId,
      live: false,
      createdAt: first.committedAt,
      createdBy: 'github|1',
      fileCount: 1,
      totalBytes: 3,
      source: 'deploy',
      previewUrl: `http://${first.deploymentId}.preview.localhost/`,
      liveUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
      preview: false,
      message: null,
      client: 'api',
      alias: null,
      aliasUrl: null,
      provenance: { credential: 'jwt' },
      state: 'ready',
    });
    const one = await authorized(`/v2/sites/${domain}/deployments/${first.deploymentId}`);
    expect(await one.json()).toEqual(oldest);
    expect((await getSite(env.DB, domain))!.liveDeploymentId).toBe(deployments[0]!.id);
  });

  it('makes no deployment of a configuration edit that leaves the host options as they are', async () => {
    const domain = 'history-same-options.example';
    await keepDeployments(domain, 20, 30);
    const stored = { fallback: '/index.html', directories: { trailingSlash: 'never', resolve: true }, headers: [{ uri: '/{+path}', fields: { 'x-a': ['1', '2'] } }] };
    await deploy(domain, { 'index.html': 'one' }, stored);
    const edit = (method: 'PUT' | 'PATCH', body: string) =>
      authorized(`/v2/sites/${domain}/configuration`, {
        method,
        headers: { 'content-type': method === 'PUT' ? 'application/json' : 'application/merge-patch+json' },
        body,
      });
    const before = await (await authorized(`/v2/sites/${domain}/configuration`)).json<{ modified: string }>();

    const same = [
      ['PUT', JSON.stringify(stored)],
      // The same members in another order, at every depth.
      ['PUT', '{"headers":[{"fields":{"x-a":["1","2"]},"uri":"/{+path}"}],"directories":{"resolve":true,"trailingSlash":"never"},"fallback":"/index.html"}'],
      ['PATCH', '{}'],
      ['PATCH', '{"fallback":"/index.html","redirects":null}'],
    ] as const;
    for (const [method, body] of same) {
      const answer = await edit(method, body);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ domain, modified: before.modified, configuration: stored });
    }
    expect((await list(domain)).deployments.map((deployment) => deployment.source)).toEqual(['deploy']);

    expect((await edit('PATCH', '{"fallback":null}')).status).toBe(200);
    expect((await list(domain)).deployments.map((deployment) => deployment.source)).toEqual(['configuration', 'deploy']);
  });

  it('pages the list with a cursor', async () => {
    const domain = 'pages.example';
    await keepDeployments(domain, 30, 0);
    for (let i = 0; i < 22; i++) await deploy(domain, { 'index.html': `v${i}` });
    const first = await list(domain);
    expect(first.deployments).toHaveLength(20);
    const second = await list(domain, first.next!);
    expect(second.next).toBeNull();
    const ids = [...first.deployments, ...second.deployments].map((deployment) => deployment.id);
    expect(new Set(ids).size).toBe(22);
    expect((await authorized(`/v2/sites/${domain}/deployments?cursor=x`)).status).toBe(400);
  });

  it('activates an old deployment atomically: its files and host options are served on the next request', async () => {
    const domain = 'rollback.example';
    await keepDeployments(domain, 20, 30);
    const old = await (await deploy(domain, { 'index.html': 'old', 'app.html': 'app' }, { fallback: { 200: '/app.html' } })).json<DeployResult>();
    await deploy(domain, { 'index.html': 'new' }, {});
    expect(await served(domain)).toBe('new');
    expect((await call(`http://${domain}/missing`)).status).toBe(404);

    const response = await activate(domain, old.deploymentId);
    expect(response.status).toBe(200);
    const result = await response.json<DeployResult>();
    expect(result).toMatchObject({ type: 'site-deploy', domain, isNewDomain: false, hasNewFiles: true, hasNewConfiguration: true, deploymentId: old.deploymentId });
    expect(await served(domain)).toBe('old');
    expect(await served(domain, '/missing')).toBe('app');
    const { deployments } = await list(domain);
    expect(deployments.find((deployment) => deployment.live)!.id).toBe(old.deploymentId);
  });

  it('refuses to activate an unknown deployment, or another owner', async () => {
    const domain = 'activate-refused.example';
    const { deploymentId } = await (await deploy(domain, { 'index.html': 'x' })).json<DeployResult>();
    expect((await activate(domain, 'aaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    const other = await authorized(`/v2/sites/${domain}/deployments/${deploymentId}/activate`, { method: 'POST' }, { user: 'github|2' });
    expect(other.status).toBe(403);
    expect(await served(domain)).toBe('x');
  });

  it('stores a preview without making it live, and activates it later', async () => {
    const domain = 'preview.example';
    await keepDeployments(domain, 20, 30);
    await deploy(domain, { 'index.html': 'live' });
    const response = await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'preview' }) });
    expect(response.status).toBe(200);
    const preview = await response.json<Deployment>();
    expect(preview).toMatchObject({ live: false, source: 'deploy', fileCount: 1, state: 'ready' });
    expect(await served(domain)).toBe('live');
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });

    expect((await activate(domain, preview.id)).status).toBe(200);
    expect(await served(domain)).toBe('preview');
  });

  it('collects deployments that fall out of the kept window, freeing exactly the objects no kept one holds', async () => {
    const domain = 'collect.example';
    await keepDeployments(domain, 2, 0);
    const first = await (await deploy(domain, { 'index.html': 'one', 'style.css': 'shared' })).json<DeployResult>();
    const afterFirst = await storedObjects(domain);
    // A single-file change: a new pack for the new file, the first deploy's pack shared.
    await authorized(`/v2/sites/${domain}/files/about.html`, { method: 'PUT', body: 'about' });
    const afterPut = await storedObjects(domain);
    const putObjects = [...afterPut.keys()].filter((key) => !afterFirst.has(key));
    expect(putObjects).toHaveLength(2);

    // A third deployment: the first falls out; its pack is still held by the second, only its index goes.
    await deploy(domain, { 'index.html': 'three' });
    const afterThird = await storedObjects(domain);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    const firstIndex = `sites/${domain}/deployments/${first.deploymentId}.json`;
    const firstPack = `sites/${domain}/packs/${first.deploymentId}`;
    expect([...(await storedObjects(domain)).keys()].sort()).toEqual([...afterThird.keys()].filter((key) => key !== firstIndex).sort());
    expect((await storedObjects(domain)).has(firstPack)).toBe(true);
    expect((await authorized(`/v2/sites/${domain}/deployments/${first.deploymentId}`)).status).toBe(404);

    // A configuration edit shares the third's files: the second falls out, and with it its pack and the first's.
    const before = await storedObjects(domain);
    await authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"fallback":"/index.html"}' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    const after = await storedObjects(domain);
    const freed = [...before.keys()].filter((key) => !after.has(key)).sort();
    expect(freed).toEqual([firstPack, ...putObjects].sort());
    const freedBytes = freed.reduce((sum, key) => sum + before.get(key)!, 0);
    expect(freedBytes).toBe(afterFirst.get(firstPack)! + putObjects.reduce((sum, key) => sum + afterPut.get(key)!, 0));
    expect([...after.keys()].every((key) => before.has(key))).toBe(true);
    expect((await list(domain)).deployments.map((deployment) => deployment.source)).toEqual(['configuration', 'deploy']);
    expect(await served(domain)).toBe('three');
  });

  it('stores the bytes of a multipart deploy once: content the site holds, or the deploy sent already, is not stored again', async () => {
    const domain = 'multipart-reuse.example';
    await keepDeployments(domain, 20, 30);
    const kiB = (fill: string) => fill.repeat(1024);
    const first = await (await deploy(domain, { 'index.html': kiB('a'), 'logo.svg': kiB('b'), 'copy.svg': kiB('b') })).json<DeployResult>();
    const firstPack = `sites/${domain}/packs/${first.deploymentId}`;
    // Two files of one content: their bytes are in the pack once.
    expect((await storedObjects(domain)).get(firstPack)).toBe(2048);

    const before = await storedObjects(domain);
    const same = await (await deploy(domain, { 'index.html': kiB('a'), 'logo.svg': kiB('b') })).json<DeployResult>();
    const added = [...(await storedObjects(domain)).keys()].filter((key) => !before.has(key));
    expect(added).toEqual([`sites/${domain}/deployments/${same.deploymentId}.json`]);

    const changed = await (await deploy(domain, { 'index.html': kiB('c'), 'logo.svg': kiB('b') })).json<DeployResult>();
    expect((await storedObjects(domain)).get(`sites/${domain}/packs/${changed.deploymentId}`)).toBe(1024);
    expect(await served(domain, '/index.html')).toBe(kiB('c'));
    expect(await served(domain, '/logo.svg')).toBe(kiB('b'));
    expect((await activate(domain, same.deploymentId)).status).toBe(200);
    expect(await served(domain, '/index.html')).toBe(kiB('a'));
  });

  it('keeps the bytes a multipart deploy reuses when the deployment that stored them is collected', async () => {
    const domain = 'multipart-reuse-collect.example';
    await keepDeployments(domain, 1, 0);
    const first = await (await deploy(domain, { 'index.html': 'kept bytes' })).json<DeployResult>();
    await deploy(domain, { 'index.html': 'kept bytes', 'new.html': 'new' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runDurableObjectAlarm(coordinatorOf(domain));
    expect((await authorized(`/v2/sites/${domain}/deployments/${first.deploymentId}`)).status).toBe(404);
    expect((await storedObjects(domain)).has(`sites/${domain}/packs/${first.deploymentId}`)).toBe(true);
    expect(await served(domain, '/index.html')).toBe('kept bytes');
  });

  it('refuses with 409 a deploy whose reused bytes were collected while it uploaded, keeping the live site', async () => {
    const domain = 'multipart-reuse-race.example';
    await deploy(domain, { 'index.html': 'live' });
    // The index the Worker wrote; its one file lies in a pack no deployment holds any more.
    const indexKey = `sites/${domain}/deployments/reusing.json`;
    await env.FILES.put(indexKey, '{}');
    const outcome = await coordinatorOf(domain).deploy({
      domain,
      userId: 'github|1',
      claims: true,
      labels: unlabelled('api'),
      files: { id: 'zzzzzzzzzzzzzzzzzzzz', indexKey, packs: [`sites/${domain}/packs/collected`], fileCount: 1, totalBytes: 4, blobs: [], written: [{ key: indexKey, bytes: 2 }], rulesRoot: '' },
    });
    expect(outcome).toMatchObject({ ok: false, problem: { kind: 'conflict', detail: expect.stringContaining('were collected while it uploaded') } });
    expect(await served(domain)).toBe('live');
  });
});
