import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Deployment, Usage } from '../../src/common/api-types';
import { type TokenOptions, authorized, authorizedWith, deploy, deployForm, problemOf } from '../support/client';
import { sha256Hex, storedObjects } from '../support/deployments';
import { blobForm, manifestOf } from '../support/incremental';
import { coordinatorVars, servedAs } from '../support/vars';
import { noise } from './support';

const kib = 1024;

/** A body that sends nothing and never ends: only an answer given before reading it arrives. */
function endlessBody(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }, { highWaterMark: 0 });
}

async function usageOf(user: TokenOptions, vars: Record<string, string> = {}): Promise<Usage> {
  return (await authorizedWith(vars, '/v2/usage', {}, user)).json<Usage>();
}

/** The bytes R2 holds for `domains`, but incremental manifests (which are not counted). */
async function bytesInR2(...domains: string[]): Promise<number> {
  let sum = 0;
  for (const domain of domains) for (const [key, size] of await storedObjects(domain)) if (!key.endsWith('.manifest.json')) sum += size;
  return sum;
}

describe('MAX_SITES_PER_USER', () => {
  const user = { user: 'github|sites-quota' };
  const vars = { MAX_SITES_PER_USER: '2' };

  it('refuses a new domain past it with 403 before the body, and still takes deploys to the sites one owns', async () => {
    await deploy('sites-one.example', { 'index.html': 'one' }, undefined, user);
    await deploy('sites-two.example', { 'index.html': 'two' }, undefined, user);
    const served = await servedAs('sites-one.example', ['/', '/index.html']);

    const refused = await authorizedWith(vars, 
      '/v2/sites/sites-three.example',
      { method: 'PUT', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: endlessBody(), duplex: 'half' } as RequestInit,
      user,
    );
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/quota-exceeded', status: 403, limit: 'MAX_SITES_PER_USER', value: 2, used: 2 });
    expect(await storedObjects('sites-three.example')).toEqual(new Map());
    const begun = await authorizedWith(vars, '/v2/sites/sites-three.example/deployments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"files":{}}' }, user);
    expect(await problemOf(begun)).toMatchObject({ limit: 'MAX_SITES_PER_USER' });

    expect((await authorizedWith(vars, '/v2/sites/sites-one.example', { method: 'PUT', body: deployForm({ 'index.html': 'one' }) }, user)).status).toBe(200);
    expect(await servedAs('sites-one.example', ['/', '/index.html'])).toEqual(served);
    // Unpublishing one makes room.
    expect((await authorized('/v2/sites/sites-two.example', { method: 'DELETE' }, user)).status).toBe(200);
    expect((await authorizedWith(vars, '/v2/sites/sites-three.example', { method: 'PUT', body: deployForm({ 'index.html': 'three' }) }, user)).status).toBe(200);
  });

  it('is checked again by the coordinator that claims the domain: of two first deploys racing for the last site, one wins', async () => {
    const racer = { user: 'github|sites-race' };
    await deploy('race-home.example', { 'index.html': 'home' }, undefined, racer);
    const domains = ['race-a.example', 'race-b.example'];
    // The Worker's early check passes both (it allows 100); each coordinator allows 2.
    for (const domain of domains) await coordinatorVars(domain, { MAX_SITES_PER_USER: '2' });
    const answers = await Promise.all(domains.map((domain) => deploy(domain, { 'index.html': domain }, undefined, racer)));

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403]);
    const refused = answers.find((answer) => answer.status === 403)!;
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/quota-exceeded', limit: 'MAX_SITES_PER_USER', value: 2 });
    expect((await usageOf(racer)).sites.used).toBe(2);
    const loser = domains[answers.indexOf(refused)]!;
    expect(await storedObjects(loser)).toEqual(new Map());
    expect((await servedAs(loser, ['/']))[0]).toMatch(/^404 /);
  });
});

describe('MAX_USER_BYTES', () => {
  it('refuses with 403 a deploy whose bytes do not fit while its body streams in, keeping every site as it was', async () => {
    const user = { user: 'github|bytes-stream' };
    await deploy('bytes-home.example', { 'index.html': 'home', 'a.txt': noise(8 * kib, 1) }, undefined, user);
    const { bytes } = await usageOf(user);
    const served = await servedAs('bytes-home.example', ['/index.html', '/a.txt']);
    const vars = { MAX_USER_BYTES: String(bytes.used + 16 * kib) };

    const refused = await authorizedWith(vars, '/v2/sites/bytes-new.example', { method: 'PUT', body: deployForm({ 'big.txt': noise(20 * kib, 2) }) }, user);
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/quota-exceeded', limit: 'MAX_USER_BYTES', value: bytes.used + 16 * kib, used: bytes.used });
    expect(await storedObjects('bytes-new.example')).toEqual(new Map());
    expect(await servedAs('bytes-home.example', ['/index.html', '/a.txt'])).toEqual(served);
    // What fits is taken.
    expect((await authorizedWith(vars, '/v2/sites/bytes-new.example', { method: 'PUT', body: deployForm({ 'small.txt': noise(4 * kib, 3) }) }, user)).status).toBe(200);
    expect((await usageOf(user)).bytes.used).toBe(await bytesInR2('bytes-home.example', 'bytes-new.example'));
  });

  it('is authoritative at the commit: the coordinator refuses what does not fit, and deletes what the deploy stored', async () => {
    const user = { user: 'github|bytes-commit' };
    const domain = 'bytes-commit.example';
    await deploy(domain, { 'index.html': 'v1' }, undefined, user);
    await coordinatorVars(domain, { MAX_USER_BYTES: String((await usageOf(user)).bytes.used + 1024) });
    const before = await storedObjects(domain);
    const served = await servedAs(domain, ['/', '/index.html']);

    // Kept deployments hold their bytes: v1 stays (DEPLOYMENTS_KEPT 2), so v2 adds its own.
    await coordinatorVars(domain, { DEPLOYMENTS_KEPT: '2' });
    const refused = await deploy(domain, { 'index.html': 'v2', 'b.txt': noise(4 * kib, 4) }, undefined, user);
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ limit: 'MAX_USER_BYTES' });
    expect(await storedObjects(domain)).toEqual(before);
    expect(await servedAs(domain, ['/', '/index.html'])).toEqual(served);

    // The same change fits once the deployment it replaces is collected in its commit (DEPLOYMENTS_KEPT 1).
    await coordinatorVars(domain, { DEPLOYMENTS_KEPT: '1', MAX_USER_BYTES: String((await usageOf(user)).bytes.used + 4 * kib + 1024) });
    expect((await deploy(domain, { 'index.html': 'v2', 'b.txt': noise(4 * kib, 4) }, undefined, user)).status).toBe(200);
  });

  it('refuses an incremental deploy whose declared sizes do not fit before any blob, and blobs that do not fit as they arrive', async () => {
    const user = { user: 'github|bytes-incremental' };
    const domain = 'bytes-incremental.example';
    await deploy(domain, { 'index.html': 'live' }, undefined, user);
    const { bytes } = await usageOf(user);
    const vars = { MAX_USER_BYTES: String(bytes.used + 8 * kib) };
    const big = noise(16 * kib, 5);
    const files = await manifestOf({ 'index.html': 'live', 'big.txt': big });
    const before = await storedObjects(domain);
    const manifest = (body: object) =>
      authorizedWith(vars, `/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, user);

    const declared = await manifest({ files, sizes: { [await sha256Hex(big)]: big.length } });
    expect(declared.status).toBe(403);
    expect(await problemOf(declared)).toMatchObject({ limit: 'MAX_USER_BYTES' });
    expect(await storedObjects(domain)).toEqual(before);

    const pending = await (await manifest({ files })).json<Deployment>();
    const sent = await authorizedWith(vars, `/v2/sites/${domain}/deployments/${pending.id}/blobs`, { method: 'PUT', body: await blobForm([big]) }, user);
    expect(sent.status).toBe(403);
    expect(await problemOf(sent)).toMatchObject({ limit: 'MAX_USER_BYTES' });
    expect([...(await storedObjects(domain)).keys()].filter((key) => !before.has(key) && !key.endsWith('.manifest.json'))).toEqual([]);
    expect(await servedAs(domain, ['/index.html'])).toEqual([expect.stringMatching(/^200 .* live$/)]);
  });

  it('never lets two coordinators committing at once for one user store past it', async () => {
    const user = { user: 'github|bytes-race' };
    const domains = ['bytes-race-a.example', 'bytes-race-b.example', 'bytes-race-c.example'];
    for (const domain of domains) await deploy(domain, { 'index.html': domain }, undefined, user);
    const limit = (await usageOf(user)).bytes.used + 12 * kib;
    for (const domain of domains) await coordinatorVars(domain, { MAX_USER_BYTES: String(limit), DEPLOYMENTS_KEPT: '2' });

    // Each adds 8 KiB (and its index): only one fits.
    const answers = await Promise.all(domains.map((domain, seed) => deploy(domain, { 'index.html': domain, 'more.txt': noise(8 * kib, 10 + seed) }, undefined, user)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403, 403]);
    const { bytes } = await usageOf(user);
    expect(bytes.used).toBeLessThanOrEqual(limit);
    expect(bytes.used).toBe(await bytesInR2(...domains));
  });
});

describe('DEPLOYS_PER_HOUR', () => {
  it('refuses a deploy past it with 429 and Retry-After before the body; deploys refused before their body do not count', async () => {
    const user = { user: 'github|deploy-rate' };
    const domain = 'deploy-rate.example';
    const vars = { DEPLOYS_PER_HOUR: '2' };
    const put = (files: Record<string, string>, to = domain) => authorizedWith(vars, `/v2/sites/${to}`, { method: 'PUT', body: deployForm(files) }, user);

    await deploy('deploy-rate-taken.example', { 'index.html': 'theirs' });
    expect((await put({ 'index.html': 'x' }, 'deploy-rate-taken.example')).status).toBe(403);
    expect((await put({ 'index.html': 'one' })).status).toBe(200);
    const served = await servedAs(domain, ['/', '/index.html']);
    const begun = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ files: await manifestOf({ 'index.html': 'two' }) }) }, user);
    expect(begun.status).toBe(201);

    const refused = await authorizedWith(vars, 
      `/v2/sites/${domain}`,
      { method: 'PUT', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: endlessBody(), duplex: 'half' } as RequestInit,
      user,
    );
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/rate-limited', status: 429, limit: 'DEPLOYS_PER_HOUR', value: 2, used: 2 });
    expect(await servedAs(domain, ['/', '/index.html'])).toEqual(served);
    expect((await usageOf(user, { DEPLOYS_PER_HOUR: '2' })).deploysPerHour).toEqual({ used: 2, limit: 2, setting: 'DEPLOYS_PER_HOUR' });
  });
});

describe('DEPLOYS_PER_HOUR over a sliding hour', () => {
  it('counts the deploys of the last hour only, and sweeps older ones as the next is recorded', async () => {
    const user = { user: 'github|deploy-hour' };
    const domain = 'deploy-hour.example';
    const vars = { DEPLOYS_PER_HOUR: '2' };
    const minutesAgo = (minutes: number) => Date.now() - minutes * 60_000;
    // Deploys begun 61 and 59 minutes ago, as the admission records them.
    const insert = env.DB.prepare('INSERT INTO user_deploys (id, user_id, at) VALUES (?, ?, ?)');
    await env.DB.batch([insert.bind('old', user.user, minutesAgo(61)), insert.bind('recent', user.user, minutesAgo(59))]);
    const rows = async () => (await env.DB.prepare('SELECT id FROM user_deploys WHERE user_id = ? ORDER BY at').bind(user.user).all<{ id: string }>()).results.map((row) => row.id);

    expect((await authorizedWith(vars, `/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'one' }) }, user)).status).toBe(200);
    // The deploy begun an hour ago and more counts for nothing, and is gone: a user keeps at most DEPLOYS_PER_HOUR rows.
    const kept = await rows();
    expect(kept).toHaveLength(2);
    expect(kept[0]).toBe('recent');

    const refused = await authorizedWith(vars, `/v2/sites/${domain}`, { method: 'PUT', body: deployForm({ 'index.html': 'two' }) }, user);
    expect(refused.status).toBe(429);
    // The one begun 59 minutes ago leaves the hour first.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});

describe('GET /v2/usage', () => {
  it("answers the caller's sites, stored bytes and deploys of the last hour, with each limit and its setting", async () => {
    const user = { user: 'github|usage' };
    const empty = await authorizedWith({}, '/v2/usage', {}, user);
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({
      userId: 'github|usage',
      sites: { used: 0, limit: Number(env.MAX_SITES_PER_USER), setting: 'MAX_SITES_PER_USER' },
      bytes: { used: 0, limit: 10 * 1024 * 1024 * 1024, setting: 'MAX_USER_BYTES' },
      deploysPerHour: { used: 0, limit: Number(env.DEPLOYS_PER_HOUR), setting: 'DEPLOYS_PER_HOUR' },
    });
    await deploy('usage-a.example', { 'index.html': 'a', 'a.txt': noise(3 * kib, 6) }, undefined, user);
    await deploy('usage-b.example', { 'index.html': 'b' }, undefined, user);
    await deploy('usage-c.example', { 'index.html': 'c', 'same.txt': 'c' }, undefined, user);
    // Another user's sites are theirs.
    await deploy('usage-other.example', { 'index.html': noise(5 * kib, 7) });

    const usage = await usageOf(user);
    expect(usage.sites.used).toBe(3);
    expect(usage.deploysPerHour.used).toBe(3);
    expect(usage.bytes.used).toBe(await bytesInR2('usage-a.example', 'usage-b.example', 'usage-c.example'));
    await authorized('/v2/sites/usage-a.example', { method: 'DELETE' }, user);
    expect(await usageOf(user)).toMatchObject({ sites: { used: 2 }, bytes: { used: await bytesInR2('usage-b.example', 'usage-c.example') } });
  });
});

describe('DEPLOYS_PER_HOUR counts a deploy once its body is read', () => {
  const vars = { DEPLOYS_PER_HOUR: '10' };
  const deploysUsed = async (user: TokenOptions) => (await usageOf(user, vars)).deploysPerHour.used;
  const badRules = { 'index.html': 'home', _redirects: '/a /b 999' };

  it('counts a multipart deploy and an incremental one refused at their end alike, and no deploy refused before its body', async () => {
    const user = { user: 'github|deploy-count' };
    const domain = 'deploy-count.example';
    await deploy('deploy-count-taken.example', { 'index.html': 'theirs' }, undefined, { user: 'github|deploy-count-other' });

    // Refused before the body is read: the domain is another user's.
    const taken = await authorizedWith(vars, '/v2/sites/deploy-count-taken.example', { method: 'PUT', body: deployForm(badRules) }, user);
    expect(taken.status).toBe(403);
    expect(await deploysUsed(user)).toBe(0);

    // The multipart path: the whole body read, then the rules refused.
    const multipart = await authorizedWith(vars, `/v2/sites/${domain}`, { method: 'PUT', body: deployForm(badRules) }, user);
    expect(multipart.status).toBe(400);
    expect(await deploysUsed(user)).toBe(1);

    // The CLI's incremental path: the manifest read, the blobs sent, then the rules refused at finalize.
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const begun = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, json({ files: await manifestOf(badRules) }), user);
    expect(begun.status).toBe(201);
    const { id } = await begun.json<Deployment>();
    const blobs = await authorizedWith(vars, `/v2/sites/${domain}/deployments/${id}/blobs`, { method: 'PUT', body: await blobForm(Object.values(badRules)) }, user);
    expect(blobs.status).toBe(200);
    expect((await authorizedWith(vars, `/v2/sites/${domain}/deployments/${id}/finalize`, { method: 'POST' }, user)).status).toBe(400);
    expect(await deploysUsed(user)).toBe(2);

    // A manifest refused once read counts too.
    const badManifest = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, json({ files: { 'index.html': 'not a hash' } }), user);
    expect(badManifest.status).toBe(400);
    expect(await deploysUsed(user)).toBe(3);
  });
});
