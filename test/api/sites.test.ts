import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { authorized, call, deploy, problemOf } from '../support/client';

const timestampForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

describe('GET /v2/sites', () => {
  it("lists only the caller's sites with spec timestamps", async () => {
    await deploy('list-a.example', { 'index.html': 'a' }, undefined, { user: 'github|10' });
    await deploy('list-b.example', { 'index.html': 'b' }, undefined, { user: 'github|10' });
    await deploy('list-c.example', { 'index.html': 'c' }, undefined, { user: 'github|11' });
    const response = await authorized('/v2/sites', {}, { user: 'github|10' });
    expect(response.status).toBe(200);
    const sites = (await response.json()) as { domain: string; userId: string; modified: string }[];
    expect(sites.map((site) => site.domain)).toEqual(['list-a.example', 'list-b.example']);
    for (const site of sites) {
      expect(site.userId).toBe('github|10');
      expect(site.modified).toMatch(timestampForm);
      expect(Object.keys(site).sort()).toEqual(['domain', 'modified', 'role', 'userId']);
      expect(site).toMatchObject({ role: 'owner' });
    }
  });
});

describe('DELETE /v2/sites/<domain>', () => {
  it('unpublishes: 200 with an empty body, record, configuration and every object gone', async () => {
    await deploy('gone.example', { 'index.html': 'x', 'a/b.css': 'y' }, { root: 'a' });
    const response = await authorized('/v2/sites/gone.example', { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const listing = await env.FILES.list({ prefix: 'sites/gone.example/' });
    expect(listing.objects).toEqual([]);
    const configuration = await authorized('/v2/sites/gone.example/configuration');
    expect(configuration.status).toBe(404);
  });

  it('answers 404 for a site that is not hosted and 403 for another user', async () => {
    expect((await authorized('/v2/sites/never.example', { method: 'DELETE' })).status).toBe(404);
    await deploy('keep.example', { 'index.html': 'x' }, undefined, { user: 'github|20' });
    const response = await authorized('/v2/sites/keep.example', { method: 'DELETE' }, { user: 'github|21' });
    expect(response.status).toBe(403);
    expect((await authorized('/v2/sites', {}, { user: 'github|20' })).ok).toBe(true);
  });
});

describe('configurations', () => {
  it('reads one configuration with deploy (own site) or global_read (any site)', async () => {
    await deploy('conf.example', {}, { fallback: '/index.html' }, { user: 'github|30' });
    const own = await authorized('/v2/sites/conf.example/configuration', {}, { user: 'github|30' });
    const record = (await own.json()) as Record<string, unknown>;
    expect(record).toMatchObject({ domain: 'conf.example', configuration: { fallback: '/index.html' } });
    expect(record.modified).toMatch(timestampForm);
    const other = await authorized('/v2/sites/conf.example/configuration', {}, { user: 'github|31' });
    expect(other.status).toBe(403);
    const reader = await authorized('/v2/sites/conf.example/configuration', {}, { user: 'github|31', scope: 'global_read' });
    expect(reader.status).toBe(200);
  });

  it('lists every configuration with Last-Modified, ETag and 304s', async () => {
    await deploy('all-1.example', {}, { root: 'one' });
    const first = await authorized('/v2/configurations', {}, { scope: 'global_read' });
    expect(first.status).toBe(200);
    const records = (await first.json()) as { domain: string; modified: string; configuration: unknown }[];
    expect(records).toContainEqual({ domain: 'all-1.example', modified: expect.stringMatching(timestampForm), configuration: { root: 'one' } });
    const lastModified = first.headers.get('last-modified')!;
    const etag = first.headers.get('etag')!;
    expect(lastModified).toMatch(/GMT$/);

    const byEtag = await authorized('/v2/configurations', { headers: { 'if-none-match': etag } }, { scope: 'global_read' });
    expect(byEtag.status).toBe(304);

    await deploy('all-2.example', {}, { root: 'two' });
    const changed = await authorized('/v2/configurations', { headers: { 'if-none-match': etag } }, { scope: 'global_read' });
    expect(changed.status).toBe(200);
  });

  it('never hides a change made within the same second behind a 304', async () => {
    await deploy('second-1.example', {}, { root: 'a' });
    const first = await authorized('/v2/configurations', {}, { scope: 'global_read' });
    const since = first.headers.get('last-modified')!;
    await deploy('second-1.example', {}, { root: 'b' });
    const again = await authorized('/v2/configurations', { headers: { 'if-modified-since': since } }, { scope: 'global_read' });
    expect(again.status).toBe(200);
    expect(await again.json()).toContainEqual(expect.objectContaining({ domain: 'second-1.example', configuration: { root: 'b' } }));
  });

  it('answers 304 to If-Modified-Since once nothing changed, and 200 after an unpublish', async () => {
    // A change alone in its second, and that second over: its Last-Modified tells the whole story.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 1100));
    await pause();
    await deploy('ims.example', {}, { root: 'a' });
    await pause();
    const first = await authorized('/v2/configurations', {}, { scope: 'global_read' });
    const since = first.headers.get('last-modified')!;
    const unchanged = await authorized('/v2/configurations', { headers: { 'if-modified-since': since } }, { scope: 'global_read' });
    expect(unchanged.status).toBe(304);

    await authorized('/v2/sites/ims.example', { method: 'DELETE' });
    const afterDelete = await authorized('/v2/configurations', { headers: { 'if-modified-since': since } }, { scope: 'global_read' });
    expect(afterDelete.status).toBe(200);
    // Stamped with the second before the unpublish's until that second is over: never earlier than the copy's.
    expect(Date.parse(afterDelete.headers.get('last-modified')!)).toBeGreaterThanOrEqual(Date.parse(since));
    expect(afterDelete.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(await afterDelete.json()).not.toContainEqual(expect.objectContaining({ domain: 'ims.example' }));
  });

  it("answers 304 to the latest record's modified as If-Modified-Since, until a change", async () => {
    const latest = async () => {
      const response = await authorized('/v2/configurations', {}, { scope: 'global_read' });
      return (await response.json<{ modified: string }[]>()).map((record) => record.modified).sort().at(-1)!;
    };
    const ask = async (since: string) => (await authorized('/v2/configurations', { headers: { 'if-modified-since': since } }, { scope: 'global_read' })).status;
    await deploy('latest-a.example', {}, { root: 'a' });
    const since = await latest();
    expect(await ask(since)).toBe(304);

    // The record's modified, as the edit answers it, is the one the list shows, and the latest.
    const edited = await authorized('/v2/sites/latest-a.example/configuration', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"root":"b"}' });
    const { modified } = await edited.json<{ modified: string }>();
    expect(await latest()).toBe(modified);
    expect(await ask(since)).toBe(200);
    expect(await ask(modified)).toBe(304);

    await deploy('latest-b.example', { 'index.html': 'b' });
    expect(await ask(modified)).toBe(200);
    const beforeDelete = await latest();
    await authorized('/v2/sites/latest-b.example', { method: 'DELETE' });
    expect(await ask(beforeDelete)).toBe(200);
  });

  it('accepts the timestamp form of response bodies in If-Modified-Since', async () => {
    await deploy('stamp.example', {}, { root: 'a' });
    const future = new Date(Date.now() + 60_000).toISOString().slice(0, 23);
    const response = await authorized('/v2/configurations', { headers: { 'if-modified-since': future } }, { scope: 'global_read' });
    expect(response.status).toBe(304);
    const past = new Date(Date.now() - 60_000).toISOString().slice(0, 23);
    const changed = await authorized('/v2/configurations', { headers: { 'if-modified-since': past } }, { scope: 'global_read' });
    expect(changed.status).toBe(200);
  });
});

describe('routing', () => {
  it('answers unknown paths with a 404 problem', async () => {
    const response = await call('/v2/nothing-here');
    expect(response.status).toBe(404);
    expect(await problemOf(response)).toMatchObject({ status: 404 });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await call('/v2/sites', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await problemOf(response)).toMatchObject({ status: 405 });
  });

  it.each(['/v1/deploy', '/v1/sites'])('answers POST %s with 410 naming the successor', async (path) => {
    const response = await call(path, { method: 'POST' });
    expect(response.status).toBe(410);
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('link')).toBe('</v2/sites/{domain}>; rel="successor-version"');
    expect((await problemOf(response)).detail).toContain('PUT /v2/sites/<domain>');
  });
});
