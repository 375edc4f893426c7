import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { DeployResult, SiteInfo } from '../../src/common/api-types';
import { serveSite } from '../../src/serving/serve';
import { Subscriber } from '../events/subscriber';
import { authorized, call, deploy, deployForm, problemOf, type TokenOptions } from '../support/client';
import { keepDeployments, sha256Hex } from '../support/deployments';

const owner: TokenOptions = { user: 'github|suspended-owner' };
const operator: TokenOptions = { user: 'github|operator', scope: 'admin' };

const json = (method: string, body: unknown, type = 'application/json'): RequestInit => ({ method, headers: { 'content-type': type }, body: JSON.stringify(body) });
const suspend = (domain: string, reason: unknown, as: TokenOptions = operator) => authorized(`/v2/sites/${domain}/suspension`, json('PUT', { reason }), as);
const resume = (domain: string, as: TokenOptions = operator) => authorized(`/v2/sites/${domain}/suspension`, { method: 'DELETE' }, as);
const info = async (domain: string) => (await authorized(`/v2/sites/${domain}/info`, {}, owner)).json<SiteInfo>();
const page = (host: string, path = '/', init: RequestInit = {}) => call(`http://${host}${path}`, init);

/** What a visitor gets: status, type and body, to compare before and after. */
async function snapshot(response: Response): Promise<{ status: number; type: string | null; body: string }> {
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

async function deployedSite(domain: string, files: Record<string, string>): Promise<DeployResult> {
  await keepDeployments(domain, 20, 30);
  const response = await deploy(domain, files, { fallback: { 200: '/index.html' } }, owner);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** The events of `domain` but its deploys: the deploy before a test's stream opened may be announced after. */
function operatorEvents(events: Subscriber, domain: string): unknown[] {
  return events.of([domain]).filter((event) => event.event !== 'site-deploy').map((event) => JSON.parse(event.data));
}

/** The 451 page; a HEAD's answer has its headers and no body. */
async function expectSuspended(response: Response, method = 'GET'): Promise<void> {
  expect(response.status).toBe(451);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('link')).toBe('<http://localhost/>; rel="blocked-by"');
  const body = await response.text();
  if (method === 'HEAD') return expect(body).toBe('');
  expect(body).toContain('This site has been suspended');
  // The reason is the owner's to read, not every visitor's.
  expect(body).not.toContain('Phishing');
}

describe('a suspended site', () => {
  it('answers 451 on its domain and its previews, shows the owner why, refuses every change, and comes back byte-identical when resumed', async () => {
    const domain = 'suspended.example';
    const files = { 'index.html': '<h1>Home</h1>', 'app.js': 'console.log(1)' };
    const first = await deployedSite(domain, files);
    const before = await Promise.all([page(domain, '/'), page(domain, '/app.js'), page(`${first.deploymentId}.preview.localhost`)].map((answer) => answer.then(snapshot)));
    const events = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));

    const suspended = await suspend(domain, '  Phishing reported (case 4411)  ');
    expect(suspended.status).toBe(201);
    const suspension = await suspended.json<{ reason: string; since: string }>();
    expect(suspension).toEqual({ reason: 'Phishing reported (case 4411)', since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/) });

    await expectSuspended(await page(domain, '/'));
    await expectSuspended(await page(domain, '/app.js', { method: 'HEAD' }), 'HEAD');
    await expectSuspended(await page(domain, '/some/route', { headers: { accept: 'text/html' } }));
    const preview = await page(`${first.deploymentId}.preview.localhost`);
    expect(preview.headers.get('x-robots-tag')).toBe('noindex');
    await expectSuspended(preview);

    expect((await info(domain)).suspension).toEqual(suspension);
    const refusals = [
      await deploy(domain, { 'index.html': 'replaced' }, undefined, owner),
      await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: deployForm({ 'index.html': 'preview' }) }, owner),
      await authorized(`/v2/sites/${domain}/deployments`, json('POST', { files: { 'index.html': await sha256Hex('incremental') } }), owner),
      await authorized(`/v2/sites/${domain}/files/new.txt`, { method: 'PUT', body: 'new' }, owner),
      await authorized(`/v2/sites/${domain}/files/app.js`, { method: 'DELETE' }, owner),
      await authorized(`/v2/sites/${domain}/configuration`, json('PUT', {}), owner),
      await authorized(`/v2/sites/${domain}/info`, json('PATCH', { metadata: { a: 'b' } }, 'application/merge-patch+json'), owner),
      await authorized(`/v2/sites/${domain}/deployments/${first.deploymentId}/activate`, { method: 'POST' }, owner),
      await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, owner),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(403);
      expect(await problemOf(refused)).toMatchObject({
        type: '/problems/site-suspended',
        reason: 'Phishing reported (case 4411)',
        since: suspension.since,
        detail: expect.stringContaining('Phishing reported (case 4411)'),
      });
    }

    expect((await resume(domain)).status).toBe(200);
    expect((await info(domain)).suspension).toBeNull();
    const after = await Promise.all([page(domain, '/'), page(domain, '/app.js'), page(`${first.deploymentId}.preview.localhost`)].map((answer) => answer.then(snapshot)));
    expect(after).toEqual(before);
    expect(before.map((answer) => answer.status)).toEqual([200, 200, 200]);

    await events.until(() => ['site-suspend', 'site-resume'].every((type) => events.of([domain]).some((event) => event.event === type)));
    await events.close();
    expect(operatorEvents(events, domain)).toEqual([
      { type: 'site-suspend', domain, reason: 'Phishing reported (case 4411)' },
      { type: 'site-resume', domain },
    ]);
    // The owner may change it again.
    expect((await deploy(domain, { 'index.html': 'back' }, undefined, owner)).status).toBe(200);
  });

  it('reaches every location on the next request, and so does its lifting', async () => {
    const domain = 'suspended-everywhere.example';
    await deployedSite(domain, { 'index.html': 'v1' });
    const locations = await Promise.all(['location-a', 'location-b', 'location-c'].map((name) => caches.open(name)));
    const servedAt = async (location: Cache) => {
      const ctx = createExecutionContext();
      const url = new URL(`http://${domain}/`);
      const response = await serveSite(new Request(url), url, env, ctx, domain, location);
      const answered = { status: response.status, body: await response.text() };
      await waitOnExecutionContext(ctx);
      return answered;
    };
    for (const location of locations) expect(await servedAt(location)).toEqual({ status: 200, body: 'v1' });
    expect((await suspend(domain, 'Malware')).status).toBe(201);
    for (const location of locations) expect((await servedAt(location)).status).toBe(451);
    expect((await resume(domain)).status).toBe(200);
    for (const location of locations) expect(await servedAt(location)).toEqual({ status: 200, body: 'v1' });
  });

  it('takes a new reason, keeping when it began; the same reason again changes nothing', async () => {
    const domain = 'suspended-twice.example';
    await deployedSite(domain, { 'index.html': 'x' });
    const first = await (await suspend(domain, 'Spam')).json<{ since: string }>();
    const again = await suspend(domain, 'Spam');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ reason: 'Spam', since: first.since });
    const changed = await suspend(domain, 'Spam, and a copyright claim');
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ reason: 'Spam, and a copyright claim', since: first.since });
    expect((await info(domain)).suspension).toEqual({ reason: 'Spam, and a copyright claim', since: first.since });
  });
});

describe('operators', () => {
  it('alone suspend and resume: deploy, global_read and the owner get 403 insufficient_scope', async () => {
    const domain = 'suspend-scope.example';
    await deployedSite(domain, { 'index.html': 'x' });
    for (const as of [owner, { user: 'github|reader', scope: 'global_read' }, { user: 'github|both', scope: 'deploy global_read' }]) {
      for (const attempt of [suspend(domain, 'Mine now', as), resume(domain, as)]) {
        const refused = await attempt;
        expect(refused.status).toBe(403);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="sitehost", error="insufficient_scope", scope="admin"');
        expect(await problemOf(refused)).toMatchObject({ type: '/problems/insufficient-scope' });
      }
    }
    expect((await call(`/v2/sites/${domain}/suspension`, json('PUT', { reason: 'x' }))).status).toBe(401);
    expect((await info(domain)).suspension).toBeNull();
    expect((await page(domain)).status).toBe(200);
  });

  it('unpublish any site, announced as site-delete; an admin token does not deploy over another user', async () => {
    const domain = 'operator-unpublish.example';
    await deployedSite(domain, { 'index.html': 'x' });
    const events = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));
    expect((await suspend(domain, 'Abuse')).status).toBe(201);
    const overwritten = await deploy(domain, { 'index.html': 'operator' }, undefined, { ...operator, scope: 'admin deploy' });
    expect(overwritten.status).toBe(403);
    expect(await problemOf(overwritten)).toMatchObject({ type: '/problems/forbidden' });

    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, operator)).status).toBe(200);
    expect((await page(domain)).status).toBe(404);
    expect((await authorized(`/v2/sites/${domain}/info`, {}, owner)).status).toBe(404);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, operator)).status).toBe(404);
    await events.until(() => events.of([domain]).some((event) => event.event === 'site-delete'));
    await events.close();
    expect(operatorEvents(events, domain)).toEqual([
      { type: 'site-suspend', domain, reason: 'Abuse' },
      { type: 'site-delete', domain },
    ]);
  });

  it.each<[string, unknown, number, Record<string, unknown>]>([
    ['a reason is required', {}, 400, { errors: [{ pointer: '/reason', message: 'must be a string that is not empty' }] }],
    ['a blank reason is none', { reason: ' \n ' }, 400, { errors: [{ pointer: '/reason', message: 'must be a string that is not empty' }] }],
    ['a reason is a string', { reason: 42 }, 400, { errors: [{ pointer: '/reason', message: 'must be a string that is not empty' }] }],
    ['a suspension has no other members', { reason: 'x', until: 'later' }, 400, { errors: [{ pointer: '/until', message: 'is not a member of a suspension' }] }],
    ['the body is an object', ['x'], 400, {}],
    ['a reason has at most 1,000 characters', { reason: '€'.repeat(1001) }, 413, { limit: 'MAX_SUSPENSION_REASON_LENGTH', value: 1000 }],
    // Printed on the owner's terminal by `sitehost info`: ESC and BEL would retitle it, a CR overwrite the line.
    ['a reason has no escape sequence', { reason: 'Abuse\u001b]0;owned\u0007' }, 400, { errors: [{ pointer: '/reason', message: 'holds the control character U+001B' }] }],
    ['a reason has no lone CR', { reason: 'Abuse\rAll fine' }, 400, { errors: [{ pointer: '/reason', message: 'holds the control character U+000D' }] }],
  ])('refuse a bad suspension: %s', async (_, body, status, problem) => {
    const domain = 'suspend-input.example';
    await deployedSite(domain, { 'index.html': 'x' });
    const refused = await authorized(`/v2/sites/${domain}/suspension`, json('PUT', body), operator);
    expect(refused.status).toBe(status);
    expect(await problemOf(refused)).toMatchObject({ status, ...problem });
    expect((await info(domain)).suspension).toBeNull();
    expect((await page(domain)).status).toBe(200);
  });

  it('take a reason of exactly 1,000 characters, counted as characters; 404 for a site that does not exist or is not suspended', async () => {
    const domain = 'suspend-long.example';
    await deployedSite(domain, { 'index.html': 'x' });
    expect((await suspend(domain, '€'.repeat(1000))).status).toBe(201);
    expect((await info(domain)).suspension?.reason).toBe('€'.repeat(1000));
    expect((await suspend('suspend-absent.example', 'x')).status).toBe(404);
    expect((await resume('suspend-absent.example')).status).toBe(404);
    expect((await resume(domain)).status).toBe(200);
    const notSuspended = await resume(domain);
    expect(notSuspended.status).toBe(404);
    expect(await problemOf(notSuspended)).toMatchObject({ detail: `The site ${domain} is not suspended.` });
  });
});
