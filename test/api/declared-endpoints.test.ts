import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { getSite } from '../../src/storage/sites-table';
import { storedObjects } from '../support/deployments';
import { liveFiles } from '../support/live-files';
import { authorized, deploy, problemOf } from '../support/client';

const timestampForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;


function json(body: unknown, type = 'application/json'): RequestInit {
  return { headers: { 'content-type': type }, body: JSON.stringify(body) };
}

describe('PUT and PATCH /v2/sites/<domain>/configuration', () => {
  it('replaces the configuration, moving GET /v2/configurations', async () => {
    await deploy('cfg-put.example', { 'index.html': 'x' }, { root: 'a' });
    const before = await authorized('/v2/configurations', {}, { scope: 'global_read' });
    const response = await authorized('/v2/sites/cfg-put.example/configuration', { method: 'PUT', ...json({ fallback: '/index.html' }) });
    expect(response.status).toBe(200);
    const record = (await response.json()) as Record<string, unknown>;
    expect(record).toMatchObject({ domain: 'cfg-put.example', configuration: { fallback: '/index.html' } });
    expect(record.modified).toMatch(timestampForm);
    const after = await authorized('/v2/configurations', { headers: { 'if-none-match': before.headers.get('etag')! } }, { scope: 'global_read' });
    expect(after.status).toBe(200);
  });

  it('merge-patches and validates the merged result', async () => {
    await deploy('cfg-patch.example', {}, { root: 'a', fallback: '/index.html' });
    const response = await authorized('/v2/sites/cfg-patch.example/configuration', {
      method: 'PATCH',
      ...json({ root: null, directories: { trailingSlash: 'never' } }, 'application/merge-patch+json'),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { configuration: unknown }).configuration).toEqual({
      fallback: '/index.html',
      directories: { trailingSlash: 'never' },
    });
    const invalid = await authorized('/v2/sites/cfg-patch.example/configuration', {
      method: 'PATCH',
      ...json({ fallback: { 200: 42 } }, 'application/merge-patch+json'),
    });
    expect(invalid.status).toBe(400);
    expect((await problemOf(invalid)).errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/fallback/200' })]));
  });

  it('refuses a wrong content type, bad JSON, a missing site and another owner', async () => {
    await deploy('cfg-bad.example', {}, {}, { user: 'github|40' });
    const wrongType = await authorized('/v2/sites/cfg-bad.example/configuration', { method: 'PATCH', ...json({}) }, { user: 'github|40' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('accept-patch')).toBe('application/merge-patch+json');
    const badJson = await authorized(
      '/v2/sites/cfg-bad.example/configuration',
      { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{nope' },
      { user: 'github|40' },
    );
    expect(badJson.status).toBe(400);
    const missing = await authorized('/v2/sites/nothing.example/configuration', { method: 'PUT', ...json({}) });
    expect(missing.status).toBe(404);
    const other = await authorized('/v2/sites/cfg-bad.example/configuration', { method: 'PUT', ...json({}) }, { user: 'github|41' });
    expect(other.status).toBe(403);
  });
});

describe('files endpoints', () => {
  it('lists a directory, the root and everything recursively', async () => {
    await deploy('files-ls.example', { 'index.html': '<h1>', 'css/a.css': 'a{}', 'css/deep/b.css': 'b{}', 'js/app.js': 'x' });
    const root = await authorized('/v2/sites/files-ls.example/files/');
    expect(root.status).toBe(200);
    const listing = (await root.json()) as Record<string, unknown>[];
    expect(listing.map((entry) => [entry.name, entry.type, entry.path])).toEqual([
      ['css', 'directory', '/css/'],
      ['index.html', 'file', '/index.html'],
      ['js', 'directory', '/js/'],
    ]);
    const file = listing.find((entry) => entry.name === 'index.html')!;
    expect(file).toMatchObject({ size: 4, contentType: 'text/html; charset=utf-8', etag: expect.stringMatching(/^"[\w-]{43}"$/) });
    expect(file.modified).toMatch(timestampForm);

    const css = (await (await authorized('/v2/sites/files-ls.example/files/css/')).json()) as { name: string }[];
    expect(css.map((entry) => entry.name)).toEqual(['a.css', 'deep']);
    const all = (await (await authorized('/v2/sites/files-ls.example/files/?recursive=1')).json()) as { path: string }[];
    expect(all.map((entry) => entry.path)).toEqual(['/css/a.css', '/css/deep/b.css', '/index.html', '/js/app.js']);
    expect((await authorized('/v2/sites/files-ls.example/files/nope/')).status).toBe(404);
    expect((await authorized('/v2/sites/files-ls.example/files/', {}, { user: 'github|99' })).status).toBe(403);
    expect((await authorized('/v2/sites/files-ls.example/files/', {}, { user: 'github|99', scope: 'global_read' })).status).toBe(200);
  });

  it('adds (201) and replaces (200) one file, reusing the other files\' stored bytes', async () => {
    await deploy('files-put.example', { 'index.html': 'home', 'about.html': 'about' });
    const before = (await getSite(env.DB, 'files-put.example'))!.deployment!;
    const added = await authorized('/v2/sites/files-put.example/files/blog/new.html', { method: 'PUT', body: 'new post' });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ path: '/blog/new.html', size: 8, contentType: 'text/html; charset=utf-8' });
    const replaced = await authorized('/v2/sites/files-put.example/files/index.html', { method: 'PUT', body: 'home v2' });
    expect(replaced.status).toBe(200);
    expect(await liveFiles('files-put.example')).toEqual({ 'about.html': 'about', 'blog/new.html': 'new post', 'index.html': 'home v2' });
    const after = (await getSite(env.DB, 'files-put.example'))!.deployment!;
    expect(after.id).not.toBe(before.id);
    // The first deploy's pack is still the one holding about.html: no copy was made.
    expect(after.packs).toContain(before.packs[0]);
    expect(after.fileCount).toBe(3);
  });

  it('stores content the site holds once: a file PUT of it points at the stored copy', async () => {
    const domain = 'files-put-stored.example';
    await deploy(domain, { 'index.html': 'home', 'a/about.html': 'about us' });
    const before = await storedObjects(domain);
    const copied = await authorized(`/v2/sites/${domain}/files/b/about.html`, { method: 'PUT', body: 'about us' });
    expect(copied.status).toBe(201);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'home', 'a/about.html': 'about us', 'b/about.html': 'about us' });
    // One object more: the new deployment's index, and no pack.
    const site = (await getSite(env.DB, domain))!.deployment!;
    const after = await storedObjects(domain);
    expect([...after.keys()].filter((key) => !before.has(key))).toEqual([site.indexKey]);
    expect(site.packs).toHaveLength(1);
  });

  it('changes nothing for the same content and type at the same path: 200, the stored entry', async () => {
    const domain = 'files-put-same.example';
    await deploy(domain, { 'index.html': 'home' });
    // A name without an extension is served with the type its upload declared.
    const put = (type: string) => authorized(`/v2/sites/${domain}/files/NOTICE`, { method: 'PUT', body: 'notice', headers: { 'content-type': type } });
    const first = await put('text/plain');
    expect(first.status).toBe(201);
    const entry = await first.json();
    const live = (await getSite(env.DB, domain))!.deployment!.id;
    const objects = await storedObjects(domain);

    const again = await put('text/plain');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(entry);
    expect((await getSite(env.DB, domain))!.deployment!.id).toBe(live);
    expect(await storedObjects(domain)).toEqual(objects);

    // Another type is a change.
    const retyped = await put('text/markdown');
    expect(retyped.status).toBe(200);
    expect(await retyped.json()).toMatchObject({ contentType: 'text/markdown; charset=utf-8' });
    expect((await getSite(env.DB, domain))!.deployment!.id).not.toBe(live);
  });

  it('deletes a file (200, empty body) and answers 404 for a missing one', async () => {
    await deploy('files-rm.example', { 'index.html': 'home', 'old.html': 'old' });
    const response = await authorized('/v2/sites/files-rm.example/files/old.html', { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(await liveFiles('files-rm.example')).toEqual({ 'index.html': 'home' });
    const missing = await authorized('/v2/sites/files-rm.example/files/old.html', { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(await problemOf(missing)).toMatchObject({ status: 404 });
  });

  it('refuses escaping paths, files over the limit, forms and strangers', async () => {
    await deploy('files-bad.example', { 'index.html': 'home' }, undefined, { user: 'github|50' });
    // `%2e%2e` segments are resolved by URL parsing before routing; an encoded slash smuggles them past it.
    const escape = await authorized('/v2/sites/files-bad.example/files/a%2F..%2F..%2Fx.html', { method: 'PUT', body: 'x' }, { user: 'github|50' });
    expect(escape.status).toBe(400);
    expect(await problemOf(escape)).toMatchObject({ type: '/problems/invalid-path' });
    const backslash = await authorized('/v2/sites/files-bad.example/files/a%5Cb.html', { method: 'PUT', body: 'x' }, { user: 'github|50' });
    expect(backslash.status).toBe(400);
    const big = await authorized(
      '/v2/sites/files-bad.example/files/big.bin',
      { method: 'PUT', body: new Uint8Array(Number(env.MAX_FILE_BYTES) + 1) },
      { user: 'github|50' },
    );
    expect(big.status).toBe(413);
    expect(await problemOf(big)).toMatchObject({ limit: 'MAX_FILE_BYTES' });
    const form = new FormData();
    form.append('directory', new File(['x'], 'x.html'));
    expect((await authorized('/v2/sites/files-bad.example/files/x.html', { method: 'PUT', body: form }, { user: 'github|50' })).status).toBe(415);
    expect((await authorized('/v2/sites/files-bad.example/files/x.html', { method: 'PUT', body: 'x' }, { user: 'github|51' })).status).toBe(403);
    expect((await authorized('/v2/sites/missing-site.example/files/x.html', { method: 'PUT', body: 'x' })).status).toBe(404);
    expect(await liveFiles('files-bad.example')).toEqual({ 'index.html': 'home' });
    // The refused uploads left no objects behind.
    const { deployment } = (await getSite(env.DB, 'files-bad.example'))!;
    const stored = (await env.FILES.list({ prefix: 'sites/files-bad.example/' })).objects.map((object) => object.key).sort();
    expect(stored).toEqual([deployment!.indexKey, ...deployment!.packs].sort());
  });

  it('refuses a file where a folder is, or under a file', async () => {
    await deploy('files-clash.example', { 'docs/index.html': 'docs', 'about': 'about' });
    const overFolder = await authorized('/v2/sites/files-clash.example/files/docs', { method: 'PUT', body: 'x' });
    expect(overFolder.status).toBe(400);
    const underFile = await authorized('/v2/sites/files-clash.example/files/about/team.html', { method: 'PUT', body: 'x' });
    expect(underFile.status).toBe(400);
    expect(await problemOf(underFile)).toMatchObject({ type: '/problems/invalid-path' });
    expect(await liveFiles('files-clash.example')).toEqual({ 'docs/index.html': 'docs', about: 'about' });
  });

  it('a file PUT racing a full deploy ends as one of the two orders, never a mix', async () => {
    const domain = 'files-race.example';
    await deploy(domain, { 'index.html': 'v0' });
    const full: Record<string, string> = {};
    for (let i = 0; i < 100; i++) full[`page-${i}.html`] = `page ${i}`;
    const [put, full200] = await Promise.all([
      authorized(`/v2/sites/${domain}/files/x.html`, { method: 'PUT', body: 'x' }),
      deploy(domain, full),
    ]);
    expect([put.status === 200 || put.status === 201, full200.status]).toEqual([true, 200]);
    const live = await liveFiles(domain);
    const deployThenPut = { ...full, 'x.html': 'x' };
    expect([full, deployThenPut]).toContainEqual(live);
  });
});

describe('info endpoints', () => {
  it('reads the site metadata object', async () => {
    await deploy('info.example', { 'index.html': 'home', 'a.css': 'abc' }, undefined, { user: 'github|60' });
    const response = await authorized('/v2/sites/info.example/info', {}, { user: 'github|60' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, any>;
    expect(body).toMatchObject({
      domain: 'info.example',
      userId: 'github|60',
      deployment: { fileCount: 2, totalBytes: 7 },
      certificate: { status: 'off' },
      metadata: {},
    });
    expect(body.created).toMatch(timestampForm);
    expect(body.deployment.created).toMatch(timestampForm);
  });

  it('sets metadata with PUT, merges with PATCH and refuses read-only fields and bounds', async () => {
    await deploy('meta.example', {});
    const put = await authorized('/v2/sites/meta.example/info', { method: 'PUT', ...json({ metadata: { team: 'web', env: 'prod' } }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { metadata: unknown }).metadata).toEqual({ team: 'web', env: 'prod' });
    const patch = await authorized('/v2/sites/meta.example/info', {
      method: 'PATCH',
      ...json({ metadata: { env: null, owner: 'ana' } }, 'application/merge-patch+json'),
    });
    expect(((await patch.json()) as { metadata: unknown }).metadata).toEqual({ team: 'web', owner: 'ana' });

    const readOnly = await authorized('/v2/sites/meta.example/info', { method: 'PUT', ...json({ domain: 'x.example', metadata: {} }) });
    expect(readOnly.status).toBe(400);
    expect((await problemOf(readOnly)).errors).toEqual([{ pointer: '/domain', message: 'is read-only' }]);
    const notString = await authorized('/v2/sites/meta.example/info', { method: 'PUT', ...json({ metadata: { n: 1 } }) });
    expect(notString.status).toBe(400);
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    const manyKeys = await authorized('/v2/sites/meta.example/info', { method: 'PUT', ...json({ metadata: tooMany }) });
    expect(manyKeys.status).toBe(413);
    expect(await problemOf(manyKeys)).toMatchObject({ limit: 'MAX_METADATA_KEYS', value: 64 });
    const tooBig = { big: 'x'.repeat(9000) };
    const manyBytes = await authorized('/v2/sites/meta.example/info', { method: 'PUT', ...json({ metadata: tooBig }) });
    expect(manyBytes.status).toBe(413);
    expect(await problemOf(manyBytes)).toMatchObject({ limit: 'MAX_METADATA_BYTES', value: 8192 });
    expect((await authorized('/v2/sites/meta.example/info', { method: 'PUT', body: '{}' })).status).toBe(415);
    const kept = (await (await authorized('/v2/sites/meta.example/info')).json()) as { metadata: unknown };
    expect(kept.metadata).toEqual({ team: 'web', owner: 'ana' });
  });
});
