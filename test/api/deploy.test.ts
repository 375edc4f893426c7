import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { getSite } from '../../src/storage/sites-table';
import { deployLimits } from '../../src/content/deploy-limits';
import { maxFramingBytes } from '../../src/deploy/multipart-reader';
import { checkDeployLength } from '../../src/deploy/receive';
import { maxJsonBytes } from '../../src/http/json-body';
import { liveFiles } from '../support/live-files';
import { authorized, call, deploy, deployForm, problemOf, token } from '../support/client';
import { unlabelled } from '../../src/content/label-checks';

/** The Worker's fetch handler called directly, so that the request's body is the stream given, errors included. */
async function callWorker(request: Request): Promise<Response> {
  const { default: worker } = await import('../../src/index');
  return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
}

async function storedKeys(domain: string): Promise<string[]> {
  const listing = await env.FILES.list({ prefix: `sites/${domain}/` });
  return listing.objects.map((object) => object.key).sort();
}

describe('PUT /v2/sites/<domain>', () => {
  it('deploys a folder as a browser uploads it, dropping the common folder', async () => {
    const response = await deploy(
      'example.com',
      { 'dist/index.html': '<h1>Hello</h1>', 'dist/css/a.css': 'body{}' },
      { fallback: { 200: '/index.html' } },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      type: 'site-deploy',
      domain: 'example.com',
      isNewDomain: true,
      hasNewFiles: true,
      hasNewConfiguration: true,
      deploymentId: expect.stringMatching(/^[a-z2-7]{20}$/),
      committedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
      provenance: { credential: 'jwt' },
    });
    expect(await liveFiles('example.com')).toEqual({ 'index.html': '<h1>Hello</h1>', 'css/a.css': 'body{}' });
  });

  it('replaces all files on the next deploy and keeps the configuration when none is sent', async () => {
    await deploy('replace.example', { 'a.html': 'a', 'b.html': 'b' }, { root: 'x' });
    const second = await deploy('replace.example', { 'c.html': 'c' });
    expect(await second.json()).toMatchObject({ isNewDomain: false, hasNewFiles: true, hasNewConfiguration: false });
    expect(await liveFiles('replace.example')).toEqual({ 'c.html': 'c' });
    expect((await getSite(env.DB, 'replace.example'))!.configuration).toEqual({ root: 'x' });
  });

  it('keeps the files when only a configuration is sent', async () => {
    await deploy('config-only.example', { 'index.html': 'kept' });
    const response = await deploy('config-only.example', {}, { directories: { trailingSlash: 'never' } });
    expect(await response.json()).toMatchObject({ hasNewFiles: false, hasNewConfiguration: true });
    expect(await liveFiles('config-only.example')).toEqual({ 'index.html': 'kept' });
  });

  it('normalises the domain: case, trailing dot, IDN', async () => {
    const response = await deploy('B%C3%BCcher.Example.', { 'index.html': 'x' });
    expect(await response.json()).toMatchObject({ domain: 'xn--bcher-kva.example' });
  });

  it.each([
    ['single label', 'localhost2'],
    ['IP address', '192.168.1.1'],
    ['wildcard', '*.example.com'],
    ['empty label', 'a..example.com'],
    ['leading hyphen', '-a.example.com'],
    ['trailing hyphen', 'a-.example.com'],
    ['underscore', 'a_b.example.com'],
    ['label over 63', `${'a'.repeat(64)}.com`],
    ['name over 253', `${'a'.repeat(60)}.`.repeat(5) + 'com'],
    ['under .localhost', 'x.localhost'],
  ])('refuses an invalid domain (%s) with 400', async (_, domain) => {
    const response = await deploy(encodeURIComponent(domain), { 'index.html': 'x' });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-domain', status: 400 });
  });

  it('refuses a site owned by another user with 403 and leaves it intact', async () => {
    await deploy('owned.example', { 'index.html': 'mine' }, undefined, { user: 'github|1' });
    const response = await deploy('owned.example', { 'index.html': 'theirs' }, undefined, { user: 'github|2' });
    expect(response.status).toBe(403);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/forbidden' });
    expect(await liveFiles('owned.example')).toEqual({ 'index.html': 'mine' });
  });

  it('refuses configuration that is not JSON or not valid, keeping the previous site', async () => {
    await deploy('badconfig.example', { 'index.html': 'v1' }, { root: 'public' });
    const notJson = await deploy('badconfig.example', { 'index.html': 'v2' }, '{not json');
    expect(notJson.status).toBe(400);
    expect(await problemOf(notJson)).toMatchObject({ type: '/problems/invalid-configuration' });
    const invalid = await deploy('badconfig.example', { 'index.html': 'v2' }, { fallback: { 200: 42 } });
    expect(invalid.status).toBe(400);
    const problem = await problemOf(invalid);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/fallback/200' })]));
    expect(await liveFiles('badconfig.example')).toEqual({ 'index.html': 'v1' });
    expect((await getSite(env.DB, 'badconfig.example'))!.configuration).toEqual({ root: 'public' });
  });

  it('answers 415 for a body that is not multipart/form-data', async () => {
    const response = await authorized('/v2/sites/json.example', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(415);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/unsupported-media-type' });
  });

  it('refuses unknown fields, a repeated configuration and a file part without a name', async () => {
    const unknown = deployForm({ 'index.html': 'x' });
    unknown.append('other', 'value');
    const r1 = await authorized('/v2/sites/fields.example', { method: 'PUT', body: unknown });
    expect(r1.status).toBe(400);
    expect((await problemOf(r1)).detail).toContain('"other"');

    const twice = deployForm({}, {});
    twice.append('configuration', '{}');
    expect((await authorized('/v2/sites/fields.example', { method: 'PUT', body: twice })).status).toBe(400);
    expect(await getSite(env.DB, 'fields.example')).toBeNull();
  });

  it.each([
    ['absolute path', '/etc/passwd'],
    ['dot-dot segment', 'dist/../secret'],
    ['dot segment', 'dist/./a'],
    ['backslash', 'dist\\a.html'],
    ['control character', 'dist/a\u0001.html'],
    ['C1 control character', 'dist/a\u0085.html'],
    ['right-to-left override', 'dist/photo\u202Egpj.exe'],
    ['left-to-right isolate', 'dist/\u2066a.html'],
    ['empty segment', 'dist//a.html'],
    ['path over 1024 bytes', `${'a'.repeat(1025)}.html`],
  ])('refuses a file path with %s', async (_, path) => {
    const response = await deploy('paths.example', { [path]: 'x', 'dist/ok.html': 'ok' });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path' });
  });

  it('refuses duplicate paths after Unicode normalisation', async () => {
    const form = new FormData();
    form.append('directory', new File(['1'], 'caf\u00e9.html'));
    form.append('directory', new File(['2'], 'cafe\u0301.html'));
    const response = await authorized('/v2/sites/dupes.example', { method: 'PUT', body: form });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path' });
  });

  it('refuses a path that would be a file and a folder at once', async () => {
    const response = await deploy('clash.example', { 'dist/docs': 'a file', 'dist/docs/index.html': 'a page' });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-path', detail: expect.stringContaining('"docs"') });
  });

  it('answers 409 when the site was unpublished while the deploy uploaded', async () => {
    const domain = 'unpublished-midway.example';
    await deploy(domain, { 'index.html': 'v1' });
    const { siteCoordinator } = await import('../../src/coordinator/coordinator-client');
    const { keys } = await import('../../src/storage/file-index');
    // What a deploy has uploaded when the unpublish deletes every object of the site:
    const indexKey = keys.index(domain, 'in-flight');
    await env.FILES.put(indexKey, '{}');
    await authorized(`/v2/sites/${domain}`, { method: 'DELETE' });
    const deploying = siteCoordinator(env, domain).deploy({
      domain,
      userId: 'github|1',
      claims: true,
      labels: unlabelled('api'),
      files: { id: 'in-flight', indexKey, packs: [], fileCount: 0, totalBytes: 0, blobs: [], written: [{ key: indexKey, bytes: 2 }], rulesRoot: '' },
    });
    await expect(deploying).rejects.toMatchObject({ kind: 'conflict', status: 409 });
    expect(await getSite(env.DB, domain)).toBeNull();
  });

  it('accepts a configuration part sent as a file, as curl -F configuration=@host.json sends it', async () => {
    const form = deployForm({ 'index.html': 'x' });
    form.append('configuration', new File(['{"root":"public"}'], 'host.json', { type: 'application/json' }));
    const response = await authorized('/v2/sites/config-file.example', { method: 'PUT', body: form });
    expect(await response.json()).toMatchObject({ hasNewConfiguration: true });
    expect((await getSite(env.DB, 'config-file.example'))!.configuration).toEqual({ root: 'public' });
  });

  it('refuses a body cut short with 400, aborts its upload and keeps the previous site', async () => {
    const domain = 'cut-short.example';
    await deploy(domain, { 'index.html': 'v1' });
    const keptKeys = await storedKeys(domain);
    const start = `--B\r\ncontent-disposition: form-data; name="directory"; filename="big.bin"\r\n\r\n`;
    // More than a pack part (5 MiB), so the upload had begun when the connection was lost.
    const sent = [new TextEncoder().encode(start), new Uint8Array(6 * 1024 * 1024)];
    const body = new ReadableStream({
      type: 'bytes',
      pull(controller) {
        const next = sent.shift();
        if (next) controller.enqueue(next);
        else controller.error(new Error('connection lost'));
      },
    });
    const response = await callWorker(
      new Request(`http://localhost/v2/sites/${domain}`, {
        method: 'PUT',
        headers: { 'content-type': 'multipart/form-data; boundary=B', authorization: `Bearer ${await token()}` },
        body,
      }),
    );
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-request', detail: expect.stringContaining('cut short') });
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'v1' });
    expect(await storedKeys(domain)).toEqual(keptKeys);
  });

  it('refuses a Content-Length no deploy within the limits can have with 413, without reading the body', { timeout: 10_000 }, async () => {
    const limits = deployLimits(env);
    const tooLong = limits.maxTotalBytes + 1024 * 1024 * 1024;
    // A body that never comes: only an answer given before reading it can arrive.
    const body = new ReadableStream({ type: 'bytes', pull: () => new Promise(() => {}) });
    const request = new Request('http://localhost/v2/sites/too-long.example', {
      method: 'PUT',
      headers: {
        'content-type': 'multipart/form-data; boundary=B',
        'content-length': String(tooLong),
        authorization: `Bearer ${await token()}`,
      },
      body,
    });
    const response = await callWorker(request);
    expect(response.status).toBe(413);
    expect(await problemOf(response)).toMatchObject({ limit: 'MAX_TOTAL_BYTES', value: limits.maxTotalBytes });
    expect(await getSite(env.DB, 'too-long.example')).toBeNull();
  });

  it('takes a Content-Length as large as a deploy within the limits can be', async () => {
    const response = await deploy('long-enough.example', { 'index.html': 'x' });
    expect(response.status).toBe(200);
    const limits = deployLimits(env);
    // Every allowed file with the largest framing the reader accepts, beside the largest configuration.
    const largest = limits.maxTotalBytes + maxJsonBytes + maxFramingBytes(limits.maxFiles + 1);
    const request = new Request('http://localhost/', { method: 'PUT', headers: { 'content-length': String(largest) } });
    expect(() => checkDeployLength(request, limits)).not.toThrow();
  });

  it('does not strip a folder that only some files share', async () => {
    await deploy('nostrip.example', { 'dist/a.html': 'a', 'b.html': 'b' });
    expect(Object.keys(await liveFiles('nostrip.example')).sort()).toEqual(['b.html', 'dist/a.html']);
  });
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when the token is missing', async () => {
    const response = await call('/v2/sites');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="sitehost", error="invalid_token"');
    expect(await problemOf(response)).toMatchObject({ status: 401 });
  });

  it.each([
    ['a bad signature', { secret: 'another-secret-entirely-different' }],
    ['an expired token', { expiresIn: Math.floor(Date.now() / 1000) - 60 }],
    ['a wrong issuer', { issuer: 'someone-else' }],
    ['a wrong audience', { audience: 'another-api' }],
  ])('refuses %s with 401', async (_, options) => {
    const response = await authorized('/v2/sites', {}, options);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="sitehost", error="invalid_token"/);
  });

  it('refuses alg: none', async () => {
    const encode = (value: object) => btoa(JSON.stringify(value)).replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_');
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: 'github|1', scope: 'deploy', iss: 'sitehost', aud: 'sitehost', exp: 9999999999 })}.`;
    const response = await call('/v2/sites', { headers: { authorization: `Bearer ${unsigned}` } });
    expect(response.status).toBe(401);
  });

  it("answers 503, not 401, when the identity provider's keys cannot be fetched", async () => {
    const { generateKeyPair, SignJWT } = await import('jose');
    const { default: worker } = await import('../../src/index');
    const { privateKey } = await generateKeyPair('ES256');
    const providerToken = await new SignJWT({ scope: 'deploy' })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setSubject('auth0|1')
      .setIssuer('https://idp.example/')
      .setAudience('sitehost')
      .setExpirationTime('1h')
      .sign(privateKey);
    // Nothing listens on port 9 of loopback: the key set cannot be fetched.
    const providerEnv = { ...env, AUTH_JWKS_URL: 'http://127.0.0.1:9/.well-known/jwks.json', AUTH_ISSUER: 'https://idp.example/' };
    const request = new Request('http://localhost/v2/sites', { headers: { authorization: `Bearer ${providerToken}` } });
    const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, providerEnv, createExecutionContext());
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(await problemOf(response)).toMatchObject({ type: '/problems/unavailable' });
  });

  it('answers 403 insufficient_scope when the scope is missing', async () => {
    const response = await authorized('/v2/sites', {}, { scope: 'global_read' });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="sitehost", error="insufficient_scope", scope="deploy read"',
    );
  });
});
