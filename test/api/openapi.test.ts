import { type OutputUnit, Validator } from '@cfworker/json-schema';
import { createExecutionContext, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import hostSchema from '../../schema/host.schema.json';
import document from '../../schema/openapi.json';
import { runCertificateJob } from '../../src/certificates/jobs';
import worker from '../../src/index';
import { ScriptedIssuer, acmeEnv, hostedSite, issuing, jobMessage, testCertificate } from '../certificates/support';
import { Subscriber } from '../events/subscriber';
import { type Method, type Reference, type ResponseObject, methods, openapi, templateOf, templatesMatching } from '../support/openapi-document';
import { authorized, authorizedWith, call, deploy, deployForm, type TokenOptions } from '../support/client';

/**
 * Checks live responses against `schema/openapi.json`: every status an operation answers must
 * be listed for it, with the documented media type, required headers and a body valid against
 * the documented schema (OpenAPI 3.1 schemas are JSON Schema 2020-12).
 */

/** The base URI the document's `$ref`s resolve against while validating. */
const documentUri = 'https://sitehost.invalid/v2/openapi.json';

/** A JSON Pointer as a URI fragment, encoded as @cfworker/json-schema keys its lookup. */
function fragmentOf(pointer: string[]): string {
  return `#/${pointer.map((segment) => encodeURI(segment.replaceAll('~', '~0').replaceAll('/', '~1')).replaceAll('#', '%23')).join('/')}`;
}

function nodeAt(pointer: string[]): unknown {
  return pointer.reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], document);
}

function pointerOf(ref: string): string[] {
  expect(ref.startsWith('#/'), `only local references are used: ${ref}`).toBe(true);
  return ref.slice(2).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Follows a `$ref` (if any) to the object it names, with that object's pointer. */
function resolved<T extends Reference>(pointer: string[], node: T): [string[], T] {
  if (!node.$ref) return [pointer, node];
  const target = pointerOf(node.$ref);
  return [target, nodeAt(target) as T];
}

function validatorAt(pointer: string[]): Validator {
  const validator = new Validator({ $ref: `${documentUri}${fragmentOf(pointer)}` }, '2020-12', false);
  validator.addSchema(document as object, documentUri);
  return validator;
}

function describeErrors(errors: OutputUnit[]): string {
  return errors.map((error) => `${error.instanceLocation}: ${error.error} (${error.keywordLocation})`).join('\n');
}

/** Asserts that `value` is valid against the schema at `pointer`. */
function expectValid(pointer: string[], value: unknown, label: string): void {
  const result = validatorAt(pointer).validate(value);
  expect(result.valid, `${label}: does not match ${pointer.join('/')}:\n${describeErrors(result.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

const schemaPointer = (name: string) => ['components', 'schemas', name];

/** Asserts that `response` is documented at `pointer` (a Response Object): headers, media type, body. */
async function expectDocumentedBody(pointer: string[], documented: ResponseObject, response: Response, label: string) {
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const [, headerObject] = resolved([], header);
    if (headerObject.required) expect(response.headers.has(name), `${label}: the ${name} header is documented as required`).toBe(true);
  }
  if (!documented.content) {
    expect(await response.text(), `${label}: no body is documented`).toBe('');
    return;
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  expect(Object.keys(documented.content), `${label}: media type`).toContain(mediaType);
  // An event stream never ends: its caller reads the events and checks each one's data. A tarball is no JSON.
  if (mediaType === 'text/event-stream' || mediaType === 'application/gzip') return;
  expectValid([...pointer, 'content', mediaType, 'schema'], await response.json(), `${label}: the body`);
}

/** Asserts that the operation for `method path` documents the response's status, and that the response matches. */
async function expectConforms(method: string, path: string, response: Response, status?: number): Promise<void> {
  const pathname = new URL(path, 'http://localhost').pathname;
  const label = `${method} ${pathname} → ${response.status}`;
  // The body is read only to explain a wrong status: a stream's body would never end.
  if (status !== undefined && response.status !== status) expect.fail(`${label}: expected ${status}: ${await response.text()}`);
  const template = templateOf(method.toLowerCase() as Method, pathname);
  expect(template, `${label}: no documented path matches`).toBeDefined();
  const operation = openapi.paths[template!]![method.toLowerCase() as Method];
  expect(operation, `${label}: ${method} ${template} is not documented`).toBeDefined();
  const listed = operation!.responses[String(response.status)];
  expect(listed, `${label}: status not documented for ${method} ${template}`).toBeDefined();
  const [pointer, documented] = resolved(['paths', template!, method.toLowerCase(), 'responses', String(response.status)], listed!);
  await expectDocumentedBody(pointer, documented, response, label);
}

async function expectComponentResponse(name: string, response: Response): Promise<void> {
  const pointer = ['components', 'responses', name];
  await expectDocumentedBody(pointer, nodeAt(pointer) as ResponseObject, response, `${name} (${response.status})`);
}

/** Sends a request as `user` (with `scope`) and checks the answer against the document. */
async function request(method: string, path: string, init: RequestInit = {}, options: TokenOptions = {}, status?: number) {
  const response = await authorized(path, { ...init, method }, options);
  await expectConforms(method, path, response, status);
}

/** The endpoints of the interface the service was born with, as path templates. */
const specEndpoints = [
  'GET /v2/configurations',
  'GET /v2/sites/{domain}/configuration',
  'PATCH /v2/sites/{domain}/configuration',
  'PUT /v2/sites/{domain}/configuration',
  'DELETE /v2/sites/{domain}',
  'PUT /v2/sites/{domain}',
  'GET /v2/sites',
  'GET /v2/sites/{domain}/files/{directory}/',
  'DELETE /v2/sites/{domain}/files/{file}',
  'PUT /v2/sites/{domain}/files/{file}',
  'GET /v2/sites/{domain}/info',
  'PATCH /v2/sites/{domain}/info',
  'PUT /v2/sites/{domain}/info',
  'POST /v1/deploy',
  'POST /v1/sites',
];
/** Documented beyond that interface: the document itself, the root folder's listing (docs/design.md, "Files and info") and one file's entry. */
const serviceEndpoints = ['GET /v2/openapi.json', 'GET /v2/sites/{domain}/files/', 'GET /v2/sites/{domain}/files/{file}'];
/** Endpoints beyond that interface, with the section of docs/design.md that declares each. */
const endpointsBeyondSpec: Record<string, string> = {
  'GET /v2/events': 'docs/design.md § Events',
  'GET /v2/sites/{domain}/certificate': 'docs/design.md § Certificates',
  'GET /v2/sites/{domain}/deployments': 'docs/design.md § Deployments',
  'POST /v2/sites/{domain}/deployments': 'docs/design.md § Deployments',
  'GET /v2/sites/{domain}/deployments/{id}': 'docs/design.md § Deployments',
  'GET /v2/sites/{domain}/deployments/{id}/rules': 'docs/design.md § Deployments',
  'POST /v2/sites/{domain}/deployments/{id}/activate': 'docs/design.md § Deployments',
  'PUT /v2/sites/{domain}/deployments/{id}/blobs': 'docs/design.md § Deployments',
  'POST /v2/sites/{domain}/deployments/{id}/finalize': 'docs/design.md § Deployments',
  'DELETE /v2/sites/{domain}/deployments/{id}': 'docs/design.md § Deployments',
  'POST /v2/sites/{domain}/dead-letters/replay': 'docs/design.md § Operators',
  'POST /v2/sites/{domain}/reconcile': 'docs/design.md § Operators',
  'GET /v2/whoami': 'docs/design.md § Authentication',
  'PUT /v2/sites/{domain}/suspension': 'docs/design.md § Operators',
  'DELETE /v2/sites/{domain}/suspension': 'docs/design.md § Operators',
  'GET /v2/users/{userId}/suspension': 'docs/design.md § Operators',
  'PUT /v2/users/{userId}/suspension': 'docs/design.md § Operators',
  'DELETE /v2/users/{userId}/suspension': 'docs/design.md § Operators',
  'GET /v2/domains/{domain}/proof': 'docs/design.md § Domains',
  'GET /v2/usage': 'docs/design.md § Quotas',
  'GET /v2/tokens': 'docs/design.md § API tokens',
  'POST /v2/tokens': 'docs/design.md § API tokens',
  'DELETE /v2/tokens': 'docs/design.md § API tokens',
  'DELETE /v2/tokens/{id}': 'docs/design.md § API tokens',
  'GET /v2/user/events': 'docs/design.md § API tokens',
  'GET /v2/sites/{domain}/members': 'docs/design.md § Members',
  'GET /v2/sites/{domain}/events': 'docs/design.md § Members',
  'PUT /v2/sites/{domain}/members/{userId}': 'docs/design.md § Members',
  'DELETE /v2/sites/{domain}/members/{userId}': 'docs/design.md § Members',
  'GET /v2/sites/{domain}/analytics': 'docs/design.md § Traffic analytics',
  'GET /v2/sites/{domain}/trust/github': 'docs/design.md § Trusted deploys from GitHub Actions',
  'PUT /v2/sites/{domain}/trust/github': 'docs/design.md § Trusted deploys from GitHub Actions',
  'DELETE /v2/sites/{domain}/trust/github': 'docs/design.md § Trusted deploys from GitHub Actions',
  'POST /v2/oidc/github': 'docs/design.md § Trusted deploys from GitHub Actions',
  'GET /v2/sites/{domain}/protection': 'docs/design.md § Protected sites',
  'PUT /v2/sites/{domain}/protection': 'docs/design.md § Protected sites',
  'POST /v2/sites/{domain}/share': 'docs/design.md § Protected sites',
  'DELETE /v2/sites/{domain}/share': 'docs/design.md § Protected sites',
  'GET /v2/info': 'docs/design.md § The CLI every deployment hands out',
  'GET /cli/sitehost-cli.tgz': 'docs/design.md § The CLI every deployment hands out',
  'GET /cli/{tarball}': 'docs/design.md § The CLI every deployment hands out',
};

function documentedEndpoints(): string[] {
  return Object.entries(openapi.paths).flatMap(([template, item]) =>
    methods.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${template}`),
  );
}

describe('the OpenAPI document', () => {
  it('documents every endpoint of the interface, plus the ones the service and docs/design.md add', () => {
    expect(documentedEndpoints().sort()).toEqual([...specEndpoints, ...serviceEndpoints, ...Object.keys(endpointsBeyondSpec)].sort());
  });

  it('lists no 501: every declared endpoint is implemented', () => {
    expect(JSON.stringify(document)).not.toMatch(/"501"|not implemented|NotImplemented/i);
  });

  it('embeds schema/host.schema.json as the host options, its references pointing into the document', () => {
    const embedded = nodeAt(['components', 'schemas', 'HostOptions']) as Record<string, unknown>;
    const prefix = '#/components/schemas/HostOptions/';
    // Undone: the embedding drops the host schema's `$id` and resolves its `#/…` references in the document.
    const standalone = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(standalone);
      if (!node || typeof node !== 'object') return node;
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' ? value.replace(prefix, '#/') : standalone(value)]));
    };
    expect(embedded.$id, 'no $id: a tool would resolve the references against it').toBeUndefined();
    expect({ ...(standalone(embedded) as object), $id: hostSchema.$id }, 'run `node scripts/openapi-host-options.mjs`').toEqual(hostSchema);
  });

  it('resolves every $ref', () => {
    const refs: string[] = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else collect(value);
        }
      }
    };
    collect(document);
    // Every reference is a JSON Pointer into this document, as OpenAPI tools resolve it (no schema has an $id of its own).
    for (const ref of refs) expect(nodeAt(pointerOf(ref)), ref).toBeDefined();
  });

  it('lists 401 and 403 for every operation that needs a token', () => {
    for (const [template, item] of Object.entries(openapi.paths)) {
      for (const method of methods) {
        const operation = item[method];
        if (!operation || operation.security?.length === 0) continue;
        expect(Object.keys(operation.responses), `${method} ${template}`).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
  });

  it('is served at GET /v2/openapi.json without a token, and describes itself', async () => {
    const response = await call('/v2/openapi.json');
    await expectConforms('GET', '/v2/openapi.json', response.clone(), 200);
    expect(await response.json()).toEqual(document);
  });
});

/** A new site whose certificate the job runner issues, from a scripted CA (the Worker under test has CERT_ISSUER off). */
async function issueCertificate(domain: string): Promise<void> {
  await hostedSite(domain);
  const issuer = new ScriptedIssuer(issuing(await testCertificate(domain)));
  expect(await runCertificateJob(acmeEnv, jobMessage(domain), issuer.select)).toEqual({ kind: 'ack' });
}

/** A new site whose certificate job fails its last retry, which sends `certificate-fail`. */
async function failCertificate(domain: string): Promise<void> {
  await hostedSite(domain);
  const issuer = new ScriptedIssuer(async () => {
    throw new Error('The CA refused the order.');
  });
  const lastAttempt = Number(acmeEnv.CERT_JOB_MAX_RETRIES) + 1;
  expect(await runCertificateJob(acmeEnv, jobMessage(domain, lastAttempt), issuer.select)).toEqual({ kind: 'retry', delaySeconds: 0 });
}

describe('live responses match the document', () => {
  const owner: TokenOptions = { user: 'github|openapi' };
  const other: TokenOptions = { user: 'github|openapi-other' };

  beforeAll(async () => {
    const response = await deploy('oa-site.example', { 'dist/index.html': '<h1>Hi</h1>', 'dist/css/a.css': 'a{}' }, { root: '/' }, owner);
    expect(response.status).toBe(200);
  });

  it('PUT /v2/sites/<domain>: 200, 400, 401, 403, 413, 415', async () => {
    const put = (domain: string, body: BodyInit, options: TokenOptions = owner, status?: number) =>
      request('PUT', `/v2/sites/${domain}`, { body }, options, status);
    await put('oa-deploy.example', deployForm({ 'dist/index.html': 'x' }, { fallback: { 200: '/index.html' } }), owner, 200);
    await put('oa-deploy.example', deployForm({}, { root: '/' }), owner, 200);
    await put('192.168.0.1', deployForm({ 'index.html': 'x' }), owner, 400);
    await put('oa-deploy.example', deployForm({}, '{not json'), owner, 400);
    await put('oa-deploy.example', deployForm({}, { fallback: { 200: 1 } }), owner, 400);
    await put('oa-deploy.example', deployForm({ '../up.html': 'x' }), owner, 400);
    await put('oa-deploy.example', deployForm({ 'index.html': 'x' }), other, 403);
    await put('oa-deploy.example', deployForm({ 'index.html': 'x' }), { scope: 'global_read' }, 403);
    await put('oa-deploy.example', deployForm({}, `{"root":"${'x'.repeat(1024 * 1024)}"}`), owner, 413);
    await put('oa-deploy.example', JSON.stringify({ root: '/' }), owner, 415);
    const anonymous = await call('/v2/sites/oa-deploy.example', { method: 'PUT', body: deployForm({ 'index.html': 'x' }) });
    await expectConforms('PUT', '/v2/sites/oa-deploy.example', anonymous, 401);
    const badToken = await call('/v2/sites/oa-deploy.example', { method: 'PUT', headers: { authorization: 'Bearer not.a.jwt' } });
    await expectConforms('PUT', '/v2/sites/oa-deploy.example', badToken, 401);
  });

  it('GET /v2/sites: 200, 401, 403', async () => {
    await request('GET', '/v2/sites', {}, owner, 200);
    await request('GET', '/v2/sites', {}, { ...owner, scope: 'global_read' }, 403);
    await request('GET', '/v2/sites', {}, { ...owner, expiresIn: -60 }, 401);
  });

  it('GET /v2/sites/<domain>/configuration: 200, 400, 403, 404', async () => {
    await request('GET', '/v2/sites/oa-site.example/configuration', {}, owner, 200);
    await request('GET', '/v2/sites/oa-site.example/configuration', {}, { scope: 'global_read' }, 200);
    await request('GET', '/v2/sites/oa-site.example/configuration', {}, other, 403);
    await request('GET', '/v2/sites/oa-absent.example/configuration', {}, owner, 404);
    await request('GET', '/v2/sites/a..b/configuration', {}, owner, 400);
  });

  it('GET /v2/configurations: 200, 304, 403', async () => {
    const readAll = { scope: 'global_read' };
    const first = await authorized('/v2/configurations', {}, readAll);
    await expectConforms('GET', '/v2/configurations', first, 200);
    const etag = first.headers.get('etag')!;
    await request('GET', '/v2/configurations', { headers: { 'if-none-match': etag } }, readAll, 304);
    await request('GET', '/v2/configurations', {}, owner, 403);
  });

  it('DELETE /v2/sites/<domain>: 200 with an empty body, 403, 404', async () => {
    await deploy('oa-delete.example', { 'index.html': 'x' }, undefined, owner);
    await request('DELETE', '/v2/sites/oa-delete.example', {}, other, 403);
    await request('DELETE', '/v2/sites/oa-delete.example', {}, owner, 200);
    await request('DELETE', '/v2/sites/oa-delete.example', {}, owner, 404);
  });

  describe('the endpoints the interface declares without payloads', () => {
    const site = '/v2/sites/oa-site.example';
    const json = (body: unknown, type = 'application/json'): RequestInit => ({ body: JSON.stringify(body), headers: { 'content-type': type } });
    const mergePatch = (body: unknown) => json(body, 'application/merge-patch+json');
    /** A JSON body past the 1 MiB a JSON request body may have. */
    const oversized = json({ root: 'x'.repeat(1024 * 1024) });

    it('PUT .../configuration: 200, 400, 403, 404, 413, 415', async () => {
      await request('PUT', `${site}/configuration`, json({ root: '/' }), owner, 200);
      await request('PUT', `${site}/configuration`, json({ nonsense: true }), owner, 400);
      await request('PUT', `${site}/configuration`, { body: '{not json', headers: { 'content-type': 'application/json' } }, owner, 400);
      await request('PUT', `${site}/configuration`, json({ root: '/' }), other, 403);
      await request('PUT', `${site}/configuration`, json({ root: '/' }), { ...owner, scope: 'global_read' }, 403);
      await request('PUT', '/v2/sites/oa-absent.example/configuration', json({ root: '/' }), owner, 404);
      await request('PUT', `${site}/configuration`, oversized, owner, 413);
      await request('PUT', `${site}/configuration`, json({ root: '/' }, 'text/plain'), owner, 415);
    });

    it('PATCH .../configuration: 200, 400, 404, 415 with Accept-Patch', async () => {
      await request('PATCH', `${site}/configuration`, mergePatch({ fallback: { 200: '/index.html' } }), owner, 200);
      await request('PATCH', `${site}/configuration`, mergePatch({ fallback: { 200: 1 } }), owner, 400);
      await request('PATCH', '/v2/sites/oa-absent.example/configuration', mergePatch({ root: '/' }), owner, 404);
      const wrongType = await authorized(`${site}/configuration`, { method: 'PATCH', ...json({ root: '/' }) }, owner);
      expect(wrongType.headers.get('accept-patch')).toBe('application/merge-patch+json');
      await expectConforms('PATCH', `${site}/configuration`, wrongType, 415);
    });

    it('GET .../files/...: listings and entries (200), 400, 403, 404', async () => {
      await request('GET', `${site}/files/`, {}, owner, 200);
      await request('GET', `${site}/files/css/`, {}, { scope: 'global_read' }, 200);
      await request('GET', `${site}/files/?recursive=1`, {}, owner, 200);
      await request('GET', `${site}/files/css/a.css`, {}, owner, 200);
      // A folder's path without the trailing slash lists the folder.
      await request('GET', `${site}/files/css`, {}, owner, 200);
      await request('GET', `${site}/files/absent/`, {}, owner, 404);
      await request('GET', `${site}/files/absent.html`, {}, owner, 404);
      await request('GET', '/v2/sites/oa-absent.example/files/', {}, owner, 404);
      await request('GET', `${site}/files/a%5Cb.css`, {}, owner, 400);
      await request('GET', '/v2/sites/a..b/files/', {}, owner, 400);
      await request('GET', `${site}/files/css/`, {}, other, 403);
    });

    it('PUT .../files/<file>: 201 with Location, 200, 400, 403, 404, 415', async () => {
      const css = { body: 'b{}', headers: { 'content-type': 'text/css' } };
      await request('PUT', `${site}/files/css/b.css`, css, owner, 201);
      await request('PUT', `${site}/files/css/b.css`, css, owner, 200);
      await request('PUT', `${site}/files/css/`, css, owner, 400);
      await request('PUT', `${site}/files/a%5Cb.css`, css, owner, 400);
      await request('PUT', `${site}/files/css/c.css`, css, other, 403);
      await request('PUT', '/v2/sites/oa-absent.example/files/a.css', css, owner, 404);
      await request('PUT', `${site}/files/css/c.css`, { body: deployForm({ 'c.css': 'c{}' }) }, owner, 415);
    });

    it('DELETE .../files/<file>: 200 with an empty body, 400, 403, 404', async () => {
      await request('PUT', `${site}/files/gone.txt`, { body: 'x' }, owner, 201);
      await request('DELETE', `${site}/files/gone.txt`, {}, other, 403);
      await request('DELETE', `${site}/files/gone.txt`, {}, owner, 200);
      await request('DELETE', `${site}/files/gone.txt`, {}, owner, 404);
      await request('DELETE', `${site}/files/css/`, {}, owner, 400);
    });

    it('GET .../info: 200, 400, 403, 404', async () => {
      await request('GET', `${site}/info`, {}, owner, 200);
      await request('GET', `${site}/info`, {}, { scope: 'global_read' }, 200);
      await request('GET', `${site}/info`, {}, other, 403);
      await request('GET', '/v2/sites/oa-absent.example/info', {}, owner, 404);
      await request('GET', '/v2/sites/a..b/info', {}, owner, 400);
    });

    it('PUT .../info: 200, 400, 403, 404, 413, 415', async () => {
      await request('PUT', `${site}/info`, json({ metadata: { team: 'web' } }), owner, 200);
      await request('PUT', `${site}/info`, json({}), owner, 200);
      await request('PUT', `${site}/info`, json({ domain: 'other-domain.example', metadata: {} }), owner, 400);
      await request('PUT', `${site}/info`, json({ metadata: { team: 1 } }), owner, 400);
      await request('PUT', `${site}/info`, json({ metadata: {} }), other, 403);
      await request('PUT', '/v2/sites/oa-absent.example/info', json({ metadata: {} }), owner, 404);
      const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`key${i}`, 'v']));
      await request('PUT', `${site}/info`, json({ metadata: tooMany }), owner, 413);
      await request('PUT', `${site}/info`, json({ metadata: {} }, 'text/plain'), owner, 415);
    });

    it('PATCH .../info: 200, 400, 404, 415', async () => {
      await request('PATCH', `${site}/info`, mergePatch({ metadata: { owner: 'ops' } }), owner, 200);
      await request('PATCH', `${site}/info`, mergePatch({ metadata: { owner: null } }), owner, 200);
      await request('PATCH', `${site}/info`, mergePatch({ metadata: null }), owner, 200);
      await request('PATCH', `${site}/info`, mergePatch({ userId: 'github|me' }), owner, 400);
      await request('PATCH', '/v2/sites/oa-absent.example/info', mergePatch({ metadata: {} }), owner, 404);
      await request('PATCH', `${site}/info`, json({ metadata: {} }), owner, 415);
    });
  });

  describe('GET /v2/events (docs/design.md § Events)', () => {
    const reader: TokenOptions = { scope: 'global_read' };

    it('200: a text/event-stream whose events carry documented payloads, for every event type', async () => {
      const abort = new AbortController();
      const response = await authorized('/v2/events', { signal: abort.signal }, reader);
      await expectConforms('GET', '/v2/events', response, 200);
      const stream = new Subscriber(response);

      const domain = 'oa-events.example';
      expect((await deploy(domain, { 'index.html': 'x' }, undefined, owner)).status).toBe(200);
      await request('PUT', `/v2/sites/${domain}/files/a.txt`, { body: 'a' }, owner, 201);
      await request('DELETE', `/v2/sites/${domain}/files/a.txt`, {}, owner, 200);
      await request('PUT', `/v2/sites/${domain}/configuration`, { body: '{"fallback":"/index.html"}', headers: { 'content-type': 'application/json' } }, owner, 200);
      const reason = { body: '{"reason":"A test of the events"}', headers: { 'content-type': 'application/json' } };
      await request('PUT', `/v2/sites/${domain}/suspension`, reason, { scope: 'admin' }, 201);
      await request('DELETE', `/v2/sites/${domain}/suspension`, {}, { scope: 'admin' }, 200);
      await request('DELETE', `/v2/sites/${domain}`, {}, owner, 200);
      await issueCertificate('oa-events-issued.example');
      await failCertificate('oa-events-failed.example');

      const domains = [domain, 'oa-events-issued.example', 'oa-events-failed.example'];
      const types = ['site-deploy', 'files-update', 'configuration-update', 'site-suspend', 'site-resume', 'site-delete', 'certificate-issue', 'certificate-fail'];
      await stream.until(() => types.every((type) => stream.of(domains).some((event) => event.event === type)));
      abort.abort();
      await stream.close();

      for (const event of stream.of(domains)) {
        const data: unknown = JSON.parse(event.data);
        expectValid(schemaPointer('Event'), data, `event ${event.id}`);
        expect((data as { type: string }).type, 'event: names the type of data').toBe(event.event);
        expectValid(schemaPointer('EventId'), Number(event.id), `event ${event.id}: id`);
      }
    });

    it('101: a WebSocket whose messages are documented EventMessages', async () => {
      const response = await authorized('/v2/events?since=0', { headers: { upgrade: 'websocket' } }, reader);
      const socket = response.webSocket!;
      await expectConforms('GET', '/v2/events', response, 101);
      const message = new Promise<string>((resolve) => socket.addEventListener('message', (event) => resolve(event.data as string)));
      socket.accept();
      expectValid(schemaPointer('EventMessage'), JSON.parse(await message), 'the first message');
      socket.close();
    });

    it('400 for a position that is no event id, 401, 403, 410 past the history', async () => {
      await request('GET', '/v2/events?since=abc', {}, reader, 400);
      await request('GET', '/v2/events', { headers: { 'last-event-id': 'x1' } }, reader, 400);
      await expectConforms('GET', '/v2/events', await call('/v2/events'), 401);
      await request('GET', '/v2/events', {}, owner, 403);
      await request('GET', '/v2/events?since=999999999999', {}, reader, 410);
    });
  });

  it('GET /v2/sites/<domain>/certificate (docs/design.md § Certificates): 200, 400, 401, 403, 404', async () => {
    const reader: TokenOptions = { scope: 'global_read' };
    await issueCertificate('oa-certificate.example');
    await request('GET', '/v2/sites/oa-certificate.example/certificate', {}, reader, 200);
    // CERT_ISSUER is off here: the deployed site never gets a certificate.
    await request('GET', '/v2/sites/oa-site.example/certificate', {}, reader, 404);
    await request('GET', '/v2/sites/oa-absent.example/certificate', {}, reader, 404);
    await request('GET', '/v2/sites/a..b/certificate', {}, reader, 400);
    await request('GET', '/v2/sites/oa-site.example/certificate', {}, owner, 403);
    await expectConforms('GET', '/v2/sites/oa-site.example/certificate', await call('/v2/sites/oa-site.example/certificate'), 401);
  });

  it('deployments (docs/design.md § Deployments): list, get, activate, preview, incremental', async () => {
    const site = '/v2/sites/oa-deployments.example';
    const first = (await (await deploy('oa-deployments.example', { 'index.html': 'one' }, undefined, owner)).json()) as { deploymentId: string };
    await request('GET', `${site}/deployments`, {}, owner, 200);
    await request('GET', `${site}/deployments`, {}, { scope: 'global_read' }, 200);
    await request('GET', `${site}/deployments?cursor=nonsense`, {}, owner, 400);
    await request('GET', `${site}/deployments/${first.deploymentId}`, {}, owner, 200);
    await request('GET', `${site}/deployments/aaaaaaaaaaaaaaaaaaaa`, {}, owner, 404);
    await request('GET', `${site}/deployments`, {}, other, 403);
    await request('PUT', `${site}?preview=true`, { body: deployForm({ 'index.html': 'two' }) }, owner, 200);
    await request('POST', `${site}/deployments/${first.deploymentId}/activate`, {}, owner, 200);
    await request('POST', `${site}/deployments/${first.deploymentId}/activate`, {}, other, 403);
    const hex = (text: string) => crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)).then((digest) => [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join(''));
    const manifest = { body: JSON.stringify({ files: { 'index.html': await hex('three') } }), headers: { 'content-type': 'application/json' } };
    const begun = await authorized(`${site}/deployments`, { method: 'POST', ...manifest }, owner);
    const { id } = (await begun.clone().json()) as { id: string };
    await expectConforms('POST', `${site}/deployments`, begun, 201);
    await request('POST', `${site}/deployments`, { ...manifest, body: '{"files": 1}' }, owner, 400);
    await request('POST', '/v2/sites/oa-first-preview-incremental.example/deployments', { ...manifest, body: JSON.stringify({ files: {}, finalize: 'preview' }) }, owner, 201);
    await request('POST', `${site}/deployments`, { ...manifest, headers: { 'content-type': 'text/plain' } }, owner, 415);
    await request('POST', `${site}/deployments/${id}/finalize`, {}, owner, 409);
    const blobs = new FormData();
    blobs.append('blob', new File(['three'], await hex('three')));
    await request('PUT', `${site}/deployments/${id}/blobs`, { body: blobs }, owner, 200);
    await request('POST', `${site}/deployments/${id}/finalize`, {}, owner, 200);
    // Asked again, it is answered as done; no deployment of the caller's uploading there is 404.
    await request('POST', `${site}/deployments/${id}/finalize`, {}, owner, 200);
    await request('POST', `${site}/deployments/${'a'.repeat(20)}/finalize`, {}, owner, 404);
    // Labelled, unchanged, and a preview claiming a new domain.
    const labelled = deployForm({ 'index.html': 'three' });
    labelled.append('message', 'labelled');
    labelled.append('alias', 'feature-x');
    await request('PUT', `${site}?preview=true`, { body: labelled, headers: { 'sitehost-client': 'cli/1.0.0' } }, owner, 200);
    await request('GET', `${site}/deployments`, {}, owner, 200);
    await request('PUT', site, { body: deployForm({ 'index.html': 'three' }) }, owner, 200);
    await request('PUT', '/v2/sites/oa-first-preview.example?preview=true', { body: deployForm({ 'index.html': 'x' }) }, owner, 200);
    const tooLong = deployForm({ 'index.html': 'x' });
    tooLong.append('message', 'x'.repeat(1001));
    await request('PUT', site, { body: tooLong }, owner, 400);
  });

  it('GET /v2/whoami (docs/design.md § Authentication): 200 for any valid token, 401', async () => {
    await request('GET', '/v2/whoami', {}, owner, 200);
    await request('GET', '/v2/whoami', {}, { scope: '' }, 200);
    await expectConforms('GET', '/v2/whoami', await call('/v2/whoami'), 401);
  });

  it('suspensions (docs/design.md § Operators): PUT 201, 200, 400, 401, 403, 404, 413, 415; DELETE 200, 403, 404; what the owner sees', async () => {
    const admin: TokenOptions = { user: 'github|openapi-operator', scope: 'admin' };
    const site = '/v2/sites/oa-suspended.example';
    const reason = (text: unknown, type = 'application/json'): RequestInit => ({ body: JSON.stringify({ reason: text }), headers: { 'content-type': type } });
    await deploy('oa-suspended.example', { 'index.html': 'x' }, undefined, owner);
    await request('PUT', `${site}/suspension`, reason('Phishing reported'), admin, 201);
    await request('PUT', `${site}/suspension`, reason('Phishing reported (case 12)'), admin, 200);
    await request('PUT', `${site}/suspension`, reason(''), admin, 400);
    await request('PUT', `${site}/suspension`, { body: '{"reason":"x","until":"never"}', headers: { 'content-type': 'application/json' } }, admin, 400);
    await request('PUT', `${site}/suspension`, reason('x'.repeat(1001)), admin, 413);
    await request('PUT', `${site}/suspension`, reason('x', 'text/plain'), admin, 415);
    await request('PUT', `${site}/suspension`, reason('x'), owner, 403);
    await request('PUT', '/v2/sites/oa-absent.example/suspension', reason('x'), admin, 404);
    await expectConforms('PUT', `${site}/suspension`, await call(`${site}/suspension`, { method: 'PUT', ...reason('x') }), 401);
    await request('GET', `${site}/info`, {}, owner, 200);
    await request('PUT', `${site}/configuration`, { body: '{}', headers: { 'content-type': 'application/json' } }, owner, 403);
    await request('DELETE', site, {}, owner, 403);
    await request('DELETE', `${site}/suspension`, {}, owner, 403);
    await request('DELETE', `${site}/suspension`, {}, admin, 200);
    await request('DELETE', `${site}/suspension`, {}, admin, 404);
    await request('DELETE', site, {}, admin, 200);
  });

  it('429 (docs/design.md § Rate limits): the documented answer, on any operation', async () => {
    // TEST_RATE_LIMITER allows 3 requests a minute of the clock (vitest.config.ts): 7 reach a refusal, even across a minute's end.
    const limited = { ...env, ADDRESS_RATE_LIMITER: env.TEST_RATE_LIMITER, ANONYMOUS_REQUESTS_PER_MINUTE: '3' };
    const headers = { 'cf-connecting-ip': `2001:db8:${crypto.randomUUID().slice(0, 4)}::1` };
    const send = () => worker.fetch(new Request('http://localhost/v2/openapi.json', { headers }) as Request<unknown, IncomingRequestCfProperties>, limited, createExecutionContext());
    let response = await send();
    for (let sent = 1; response.status !== 429 && sent < 7; sent++) {
      await response.body?.cancel();
      response = await send();
    }
    await expectConforms('GET', '/v2/openapi.json', response, 429);
  });

  it('GET /v2/domains/<domain>/proof (docs/design.md § Domains): 200, 400, 401, 403, 503; a deploy waiting on the DNS: 503', async () => {
    await request('GET', '/v2/domains/oa-proof.example/proof', {}, owner, 200);
    await request('GET', '/v2/domains/co.uk/proof', {}, owner, 400);
    await request('GET', '/v2/domains/a..b/proof', {}, owner, 400);
    await request('GET', '/v2/domains/oa-proof.example/proof', {}, { scope: 'global_read' }, 403);
    await expectConforms('GET', '/v2/domains/oa-proof.example/proof', await call('/v2/domains/oa-proof.example/proof'), 401);
    // DOMAIN_PROOF=dns with a resolver that does not answer (test/node/domain-proof.test.ts checks the 403 against a DNS server).
    const dns = { DOMAIN_PROOF: 'dns', DNS_RESOLVER_URL: 'http://127.0.0.1:9/dns-query' };
    await expectConforms('GET', '/v2/domains/oa-proof.example/proof', await authorizedWith(dns, '/v2/domains/oa-proof.example/proof', {}, owner), 503);
    const deployed = await authorizedWith(dns, '/v2/sites/oa-proof.example', { method: 'PUT', body: deployForm({ 'index.html': 'x' }) }, owner);
    await expectConforms('PUT', '/v2/sites/oa-proof.example', deployed, 503);
    await request('PUT', '/v2/sites/github.io', { body: deployForm({ 'index.html': 'x' }) }, owner, 400);
  });

  it('quotas (docs/design.md § Quotas): GET /v2/usage 200, 401, 403; a deploy over a quota 403, over a rate 429', async () => {
    const user: TokenOptions = { user: 'github|openapi-quotas' };
    await request('GET', '/v2/usage', {}, owner, 200);
    await request('GET', '/v2/usage', {}, { ...owner, scope: 'global_read' }, 403);
    await expectConforms('GET', '/v2/usage', await call('/v2/usage'), 401);
    await deploy('oa-quotas.example', { 'index.html': 'one' }, undefined, user);
    const put = async (vars: Record<string, string>, domain: string, files: Record<string, string>, status: number) =>
      expectConforms('PUT', `/v2/sites/${domain}`, await authorizedWith(vars, `/v2/sites/${domain}`, { method: 'PUT', body: deployForm(files) }, user), status);
    await put({ MAX_SITES_PER_USER: '1' }, 'oa-quotas-second.example', { 'index.html': 'two' }, 403);
    await put({ MAX_USER_BYTES: '8' }, 'oa-quotas.example', { 'index.html': 'more than eight bytes' }, 403);
    await put({ DEPLOYS_PER_HOUR: '1' }, 'oa-quotas.example', { 'index.html': 'three' }, 429);
    const manifest = { method: 'POST', body: JSON.stringify({ files: { 'index.html': 'ab'.repeat(32) } }), headers: { 'content-type': 'application/json' } };
    const begin = () => authorizedWith({ MAX_UNFINISHED_DEPLOYMENTS: '1' }, '/v2/sites/oa-quotas.example/deployments', manifest, user);
    await expectConforms('POST', '/v2/sites/oa-quotas.example/deployments', await begin(), 201);
    await expectConforms('POST', '/v2/sites/oa-quotas.example/deployments', await begin(), 429);
  });

  it('the CLI the service hands out (docs/design.md § The CLI every deployment hands out): GET /v2/info 200; the tarball 302, 200, 304, 404', async () => {
    const info = await call('/v2/info');
    const { cli } = (await info.clone().json()) as { cli: { url: string } };
    await expectConforms('GET', '/v2/info', info, 200);
    await expectConforms('GET', '/cli/sitehost-cli.tgz', await call('/cli/sitehost-cli.tgz', { redirect: 'manual' }), 302);
    const versioned = new URL(cli.url).pathname;
    const tarball = await call(versioned);
    const etag = tarball.headers.get('etag')!;
    await expectConforms('GET', versioned, tarball, 200);
    await expectConforms('GET', versioned, await call(versioned, { headers: { 'if-none-match': etag } }), 304);
    const otherVersion = await call('/cli/sitehost-cli-0.0.1.tgz');
    // Every answer of the API host names the version, a refusal's too.
    expect(otherVersion.headers.get('sitehost-version')).toBe(new URL(cli.url).pathname.replace(/^\/cli\/sitehost-cli-(.+)\.tgz$/, '$1'));
    await expectConforms('GET', '/cli/sitehost-cli-0.0.1.tgz', otherVersion, 404);
  });

  it('POST /v1/deploy and /v1/sites: 410', async () => {
    for (const path of ['/v1/deploy', '/v1/sites']) await expectConforms('POST', path, await call(path, { method: 'POST' }), 410);
  });

  it('an unknown path: the documented 404', async () => {
    const response = await call('/v2/nothing-here');
    expect(response.status).toBe(404);
    expect(templatesMatching('/v2/nothing-here')).toEqual([]);
    await expectComponentResponse('NotFound', response);
  });

  /** One concrete URL per documented path (the files root shares its route with single files). */
  const samples = Object.keys(openapi.paths)
    .filter((template) => !template.endsWith('/files/'))
    .map((template) => template.replace('{domain}', 'oa-site.example').replace('{directory}', 'css').replace('{file}', 'css/a.css'));

  it.each(samples)('%s: Allow lists the documented methods; any other answers the documented 405', async (path) => {
    const documented = templatesMatching(path).flatMap((template) => methods.filter((method) => openapi.paths[template]![method]).map((method) => method.toUpperCase()));
    const expected = new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])]);
    const options = await call(path, { method: 'OPTIONS' });
    const allow = new Set((options.headers.get('allow') ?? '').split(',').map((method) => method.trim()));
    expect(allow).toEqual(expected);

    const unlisted = ['POST', 'PATCH', 'PUT', 'DELETE', 'GET'].find((method) => !expected.has(method))!;
    const response = await call(path, { method: unlisted });
    expect(response.status).toBe(405);
    await expectComponentResponse('MethodNotAllowed', response);
  });
});
