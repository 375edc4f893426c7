import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentPage, DeployResult, SiteInfo, Usage } from '../../src/common/api-types';
import { authorized, authorizedWith, call, deploy, deployForm, problemOf } from '../support/client';
import { coordinatorOf, keepDeployments, sha256Hex, storedObjects } from '../support/deployments';
import { begin, blobForm, finalize, manifestOf } from '../support/incremental';
import { liveFiles } from '../support/live-files';

/**
 * What tells deployments apart besides their files (docs/design.md, "Deployments"): a message,
 * the client and an alias, recorded however a deployment is made; a live deploy of what the site
 * serves already makes none; a preview may be a domain's first deploy.
 */

async function list(domain: string): Promise<Deployment[]> {
  const response = await authorized(`/v2/sites/${domain}/deployments`);
  expect(response.status).toBe(200);
  return (await response.json<DeploymentPage>()).deployments;
}

/** A multipart deploy with `message` and `alias` fields, through `client`. */
function labelledDeploy(domain: string, files: Record<string, string>, fields: { message?: string; alias?: string; client?: string; preview?: boolean }) {
  const form = deployForm(files);
  if (fields.message !== undefined) form.append('message', fields.message);
  if (fields.alias !== undefined) form.append('alias', fields.alias);
  const headers: Record<string, string> = fields.client ? { 'sitehost-client': fields.client } : {};
  return authorized(`/v2/sites/${domain}${fields.preview ? '?preview=true' : ''}`, { method: 'PUT', body: form, headers });
}

/** An incremental deploy of `files` in one request (manifest with extra members, then the blobs), committed at once. */
async function manifestDeploy(domain: string, files: Record<string, string>, members: Record<string, unknown>, headers: Record<string, string> = {}) {
  const form = await blobForm(Object.values(files));
  const body = new FormData();
  body.append('manifest', JSON.stringify({ files: await manifestOf(files), finalize: 'live', ...members }));
  for (const [name, value] of form) body.append(name, value);
  return authorized(`/v2/sites/${domain}/deployments`, { method: 'POST', body, headers });
}

function served(domain: string, path = '/'): Promise<Response> {
  return call(`http://${domain}${path}`);
}

describe('deployment labels', () => {
  it('records the message, the client and the alias of each deployment, however it is made', async () => {
    const domain = 'labels.example';
    await keepDeployments(domain, 20, 30);
    const message = 'Release 1.2: “ünïcödé” 🚀\n\nSecond paragraph\twith a tab.';
    const multipart = await labelledDeploy(domain, { 'index.html': 'one' }, { message, alias: 'feature-x', client: 'cli/0.1.0' });
    expect(multipart.status).toBe(200);
    const incremental = await manifestDeploy(domain, { 'index.html': 'two' }, { message: 'from the page' }, { 'sitehost-client': 'dashboard' });
    expect(incremental.status).toBe(200);
    await authorized(`/v2/sites/${domain}/files/about.html`, { method: 'PUT', body: 'about', headers: { 'sitehost-client': 'cli/9.9.9' } });
    await authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json', 'sitehost-client': 'something-else/1' }, body: '{"fallback":"/index.html"}' });

    const [configuration, file, page, cli] = await list(domain);
    expect(cli).toMatchObject({ source: 'deploy', client: 'cli', message, alias: 'feature-x', preview: false });
    expect(cli!.aliasUrl).toMatch(/^http:\/\/feature-x--labels-example-[a-z2-7]{13}\.preview\.localhost\/$/);
    expect(page).toMatchObject({ source: 'incremental', client: 'dashboard', message: 'from the page', alias: null, aliasUrl: null });
    expect(file).toMatchObject({ source: 'file-put', client: 'cli', message: null });
    expect(configuration).toMatchObject({ source: 'configuration', client: 'api', message: null });
  });

  it('refuses a message over MAX_MESSAGE_LENGTH, control characters and a malformed alias, storing nothing', async () => {
    const domain = 'labels-refused.example';
    await deploy(domain, { 'index.html': 'live' });
    const before = await storedObjects(domain);
    // 1,000 characters are allowed, counted as characters (code points), not bytes.
    expect((await labelledDeploy(domain, { 'index.html': 'ok' }, { message: '🚀'.repeat(1000), preview: true })).status).toBe(200);
    const afterAllowed = await storedObjects(domain);

    const tooLong = await labelledDeploy(domain, { 'index.html': 'no' }, { message: 'x'.repeat(1001) });
    expect(tooLong.status).toBe(400);
    expect(await problemOf(tooLong)).toMatchObject({ limit: 'MAX_MESSAGE_LENGTH', value: 1000, detail: expect.stringContaining('1001 characters') });
    const farTooLong = await manifestDeploy(domain, { 'index.html': 'no' }, { message: 'x'.repeat(5000) });
    expect(await problemOf(farTooLong)).toMatchObject({ status: 400, limit: 'MAX_MESSAGE_LENGTH' });
    const bell = await manifestDeploy(domain, { 'index.html': 'no' }, { message: 'ding\u0007' });
    expect(await problemOf(bell)).toMatchObject({ status: 400, detail: expect.stringContaining('"message" is refused: it holds the control character U+0007') });
    // What would act on the terminal `sitehost deployments` prints it on: an escape sequence (retitles it), a lone CR (overwrites the line).
    for (const message of ['title\u001b]0;owned\u0007', 'release 2\rall fine, nothing to see', 'csi \u009b2J']) {
      for (const refused of [await labelledDeploy(domain, { 'index.html': 'no' }, { message }), await manifestDeploy(domain, { 'index.html': 'no' }, { message })]) {
        expect(refused.status, JSON.stringify(message)).toBe(400);
        expect(await problemOf(refused)).toMatchObject({ detail: expect.stringContaining('"message" is refused'), errors: [{ pointer: '/message' }] });
      }
    }
    for (const alias of ['Feature_X', 'a--b', '-a', 'a'.repeat(33), '']) {
      const refused = await labelledDeploy(domain, { 'index.html': 'no' }, { alias });
      expect(refused.status, alias).toBe(400);
      expect((await problemOf(refused)).detail).toContain('alias');
    }
    const twice = deployForm({ 'index.html': 'no' });
    twice.append('message', 'one');
    twice.append('message', 'two');
    expect((await authorized(`/v2/sites/${domain}`, { method: 'PUT', body: twice })).status).toBe(400);

    expect(await liveFiles(domain)).toEqual({ 'index.html': 'live' });
    expect(await list(domain)).toHaveLength(2);
    expect(new Set((await storedObjects(domain)).keys())).toEqual(new Set(afterAllowed.keys()));
    expect(afterAllowed.size).toBeGreaterThan(before.size);
  });
});

describe('a live deploy the site serves already', () => {
  it('makes no deployment, stores nothing and says so, however it is sent', async () => {
    const domain = 'unchanged.example';
    await keepDeployments(domain, 20, 30);
    const files = { 'index.html': 'home', 'css/site.css': 'body{}' };
    const first = await (await deploy(domain, files, { fallback: '/index.html' })).json<DeployResult>();
    const stored = await storedObjects(domain);

    const again = await deploy(domain, files);
    expect(again.status).toBe(200);
    // The live deployment's preview URL, which the result (also its event) has no room for.
    expect(again.headers.get('link')).toBe(`<http://${first.deploymentId}.preview.localhost/>; rel="preview"`);
    const result = await again.json<DeployResult>();
    expect(result).toMatchObject({ unchanged: true, deploymentId: first.deploymentId, isNewDomain: false, hasNewFiles: false, hasNewConfiguration: false });
    expect(result.committedAt >= first.committedAt).toBe(true);
    // The same host options sent again, and a message alone, are no change either.
    const sameOptions = await labelledDeploy(domain, files, { message: 'a message alone' });
    expect(await sameOptions.json()).toMatchObject({ unchanged: true, deploymentId: first.deploymentId });
    const inOne = await manifestDeploy(domain, files, { configuration: { fallback: '/index.html' } });
    expect(await inOne.json()).toMatchObject({ unchanged: true, deploymentId: first.deploymentId });
    expect((await begin(domain, await manifestOf(files), undefined, 'live')).status).toBe(200);

    // A manifest stored as uploading, finalized: the uploading deployment goes, nothing is made.
    const uploading = await (await begin(domain, await manifestOf(files))).json<Deployment>();
    expect(uploading).toMatchObject({ state: 'uploading', missing: [] });
    expect(await (await finalize(domain, uploading.id)).json()).toMatchObject({ unchanged: true, deploymentId: first.deploymentId });
    expect((await authorized(`/v2/sites/${domain}/deployments/${uploading.id}`)).status).toBe(404);

    expect((await list(domain)).map((deployment) => deployment.id)).toEqual([first.deploymentId]);
    // The uploading deployment's manifest goes after the grace period, as a collection's objects do.
    const left = async () => {
      await runDurableObjectAlarm(coordinatorOf(domain));
      return new Set((await storedObjects(domain)).keys());
    };
    await expect.poll(left, { timeout: 10_000, interval: 200 }).toEqual(new Set(stored.keys()));
  });

  it('is a new deployment when a file, a content type, the host options or the alias differ, and a preview always is', async () => {
    const domain = 'unchanged-not.example';
    await keepDeployments(domain, 20, 30);
    const files = { 'index.html': 'home', 'data': 'x' };
    await deploy(domain, files);
    const changes: [string, () => Promise<Response>][] = [
      ['a file', () => deploy(domain, { ...files, 'index.html': 'new home' })],
      ['a file back', () => deploy(domain, files)],
      ['a content type', () => {
        const form = new FormData();
        form.append('directory', new File(['home'], 'index.html'));
        form.append('directory', new File(['x'], 'data', { type: 'application/json' }));
        return authorized(`/v2/sites/${domain}`, { method: 'PUT', body: form });
      }],
      ['the host options', () => deploy(domain, files, { fallback: '/index.html' })],
      ['an alias', () => labelledDeploy(domain, files, { alias: 'main' })],
      ['a preview', () => labelledDeploy(domain, files, { preview: true })],
    ];
    for (const [change, send] of changes) {
      const answer = await (await send()).json<DeployResult & Deployment>();
      expect(answer.unchanged, change).toBeUndefined();
    }
    expect(await list(domain)).toHaveLength(changes.length + 1);
    // The live one has the alias now: the same deploy with it changes nothing.
    expect(await (await labelledDeploy(domain, files, { alias: 'main' })).json()).toMatchObject({ unchanged: true });
  });
});

describe('a preview as the first deploy of a domain', () => {
  it('claims the domain for its maker, with nothing live until a deployment is made live', async () => {
    const domain = 'first-preview.example';
    const response = await labelledDeploy(domain, { 'index.html': 'preview' }, { preview: true, message: 'first look' });
    expect(response.status).toBe(200);
    const preview = await response.json<Deployment>();
    expect(preview).toMatchObject({ live: false, preview: true, message: 'first look', liveUntil: null });

    const sites = await (await authorized('/v2/sites')).json<{ domain: string }[]>();
    expect(sites.map((site) => site.domain)).toContain(domain);
    expect(await (await authorized(`/v2/sites/${domain}/info`)).json<SiteInfo>()).toMatchObject({ userId: 'github|1', deployment: null });
    const nothing = await served(domain);
    expect(nothing.status).toBe(404);
    expect(await nothing.text()).toContain('No site here');
    expect(await (await call(`http://${preview.id}.preview.localhost/`)).text()).toBe('preview');

    // Claimed: another user can neither deploy nor preview there.
    expect((await deploy(domain, { 'index.html': 'theirs' }, undefined, { user: 'github|2' })).status).toBe(403);
    const theirPreview = await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'x' }) }, { user: 'github|2' });
    expect(theirPreview.status).toBe(403);

    expect((await authorized(`/v2/sites/${domain}/deployments/${preview.id}/activate`, { method: 'POST' })).status).toBe(200);
    expect(await (await served(domain)).text()).toBe('preview');
  });

  it('counts the domain it claims as a site of its maker, against MAX_SITES_PER_USER', async () => {
    const user = { user: 'github|preview-sites' };
    const vars = { MAX_SITES_PER_USER: '2' };
    await deploy('preview-sites-one.example', { 'index.html': 'one' }, undefined, user);
    const claimed = await authorizedWith(vars, '/v2/sites/preview-sites-two.example?preview=true', { method: 'PUT', body: deployForm({ 'index.html': 'two' }) }, user);
    expect(claimed.status).toBe(200);
    expect((await (await authorizedWith(vars, '/v2/usage', {}, user)).json<Usage>()).sites.used).toBe(2);
    const refused = await authorizedWith(vars, '/v2/sites/preview-sites-three.example?preview=true', { method: 'PUT', body: deployForm({ 'index.html': 'three' }) }, user);
    expect(await problemOf(refused)).toMatchObject({ status: 403, limit: 'MAX_SITES_PER_USER' });
  });

  it('through an incremental deploy finalized as a preview, in one request or after the upload', async () => {
    const atOnce = await manifestDeploy('first-preview-incremental.example', { 'index.html': 'one' }, { finalize: 'preview' });
    expect(atOnce.status).toBe(201);
    expect(await atOnce.json()).toMatchObject({ state: 'ready', live: false, preview: true });

    const domain = 'first-preview-finalized.example';
    const pending = await (await begin(domain, { 'index.html': await sha256Hex('two') })).json<Deployment>();
    await authorized(`/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm(['two']) });
    const finalized = await finalize(domain, pending.id, { preview: true });
    expect(finalized.status).toBe(200);
    expect(await finalized.json()).toMatchObject({ live: false, preview: true });
    expect((await served(domain)).status).toBe(404);
    expect((await env.DB.prepare('SELECT user_id FROM sites WHERE domain = ?').bind(domain).first('user_id'))).toBe('github|1');
  });
});
