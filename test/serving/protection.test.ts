/**
 * Protected previews and sites (docs/design.md, "Protected sites"): who may open a host, share
 * links and their cookies, password sign-in, and what a refused visitor and a shared cache see.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeployResult } from '../../src/common/api-types';
import type { ShareLink, SiteProtectionView } from '../../src/common/protection-types';
import worker from '../../src/index';
import { grantKeyOf, signGrant } from '../../src/protection/grant';
import { serveSite } from '../../src/serving/serve';
import { authorized, call, deploy, problemOf, type TokenOptions } from '../support/client';
import { Subscriber } from '../events/subscriber';
import { fuzzParameters } from '../fuzz/settings';

const owner: TokenOptions = { user: 'github|protect-owner' };
const viewer: TokenOptions = { user: 'github|protect-viewer' };
const stranger: TokenOptions = { user: 'github|protect-stranger' };

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A request to the Worker with the service's own default for new sites' previews (the suite's is "public"). */
async function visit(url: string, init: RequestInit = {}, vars: Record<string, string> = { NEW_SITE_PREVIEWS: 'members' }): Promise<Response> {
  const request = new Request(url, { redirect: 'manual', ...init }) as Request<unknown, IncomingRequestCfProperties>;
  return worker.fetch(request, { ...env, ...vars }, createExecutionContext());
}

async function protect(domain: string, body: Record<string, unknown>, who = owner): Promise<Response> {
  return authorized(`/v2/sites/${domain}/protection`, json('PUT', body), who);
}

async function share(domain: string, body: Record<string, unknown>, who = owner): Promise<ShareLink> {
  const response = await authorized(`/v2/sites/${domain}/share`, json('POST', body), who);
  expect(response.status).toBe(200);
  return response.json();
}

/** The `name=value` a `Set-Cookie` sets, as a browser sends it back. */
function cookieFrom(response: Response): string {
  const set = response.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

/** Opens a share link: its answer, and the cookie it set. */
async function openLink(link: ShareLink): Promise<{ response: Response; cookie: string }> {
  const response = await visit(link.url);
  return { response, cookie: cookieFrom(response) };
}

const grantKey = () => grantKeyOf(env.AUTH_SECRET!);

async function member(domain: string, user: TokenOptions, role: 'viewer' | 'deployer'): Promise<void> {
  expect((await authorized(`/v2/sites/${domain}/members/${encodeURIComponent(user.user!)}`, json('PUT', { role }), owner)).status).toBe(201);
}

describe('PUT and GET /v2/sites/<domain>/protection', () => {
  it("is the owner's: a viewer reads nothing and sets nothing; the password is never shown, and announced without it", async () => {
    const domain = 'protect-settings.example';
    expect((await deploy(domain, { 'index.html': 'home' }, undefined, owner)).status).toBe(200);
    await member(domain, viewer, 'viewer');
    const initial = (await authorized(`/v2/sites/${domain}/protection`, {}, owner)).json<SiteProtectionView>();
    expect(await initial).toEqual({ previews: 'public', site: 'public', passwordSet: false, signedOutAt: null });
    expect((await authorized(`/v2/sites/${domain}/protection`, {}, viewer)).status).toBe(403);
    expect((await protect(domain, { previews: 'members', site: 'public' }, viewer)).status).toBe(403);

    const events = new Subscriber(await authorized(`/v2/sites/${domain}/events`, {}, owner));
    const set = await protect(domain, { previews: 'members', site: 'password', password: 'correct horse battery' });
    expect(set.status).toBe(200);
    const view = await set.json<SiteProtectionView>();
    expect(view).toMatchObject({ previews: 'members', site: 'password', passwordSet: true });
    expect(view.signedOutAt).not.toBeNull();
    const read = await (await authorized(`/v2/sites/${domain}/protection`, {}, owner)).text();
    expect(read).not.toMatch(/correct horse|salt|hash/);
    await events.until(() => events.events.some((event) => event.event === 'protection-update'));
    const announced = events.events.find((event) => event.event === 'protection-update')!;
    expect(JSON.parse(announced.data)).toEqual({ type: 'protection-update', domain, previews: 'members', site: 'password', signedOut: true });
    expect(announced.data).not.toMatch(/correct horse|salt|hash/);
    await events.close();

    // Switching modes keeps the password; the site may go back to "password" without sending it again.
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    expect(await (await protect(domain, { previews: 'members', site: 'password' })).json()).toMatchObject({ passwordSet: true });
  });

  it('refuses what it cannot store, naming the member and the limit', async () => {
    const domain = 'protect-refusals.example';
    expect((await deploy(domain, { 'index.html': 'x' }, undefined, owner)).status).toBe(200);
    const noPassword = await problemOf(await protect(domain, { previews: 'public', site: 'password' }));
    expect(noPassword).toMatchObject({ status: 400, errors: [{ pointer: '/password' }] });
    expect(await problemOf(await protect(domain, { previews: 'public', site: 'password', password: 'short' }))).toMatchObject({ status: 400, limit: 'SITE_PASSWORD_MIN_LENGTH', value: 8 });
    expect(await problemOf(await protect(domain, { previews: 'everyone', site: 'public' }))).toMatchObject({ status: 400, errors: [{ pointer: '/previews' }] });
    expect(await problemOf(await protect(domain, { previews: 'public', site: 'public', extra: 1 }))).toMatchObject({ status: 400, errors: [{ pointer: '/extra' }] });
    expect((await protect(domain, { previews: 'public', site: 'public' }, stranger)).status).toBe(403);
    expect((await authorized('/v2/sites/protect-nothing.example/protection', {}, owner)).status).toBe(404);
  });
});

describe('protected previews and share links', () => {
  it("keep a new site's previews to members by default: the refusal names nothing of the site, and a viewer's link lets a fresh visitor in", async () => {
    const domain = 'protect-default.example';
    const { deploymentId } = await (await deploy(domain, { 'index.html': '<title>Secret launch</title>launch plans', 'plans.html': 'plans' }, undefined, owner)).json<DeployResult>();
    await member(domain, viewer, 'viewer');
    const host = `http://${deploymentId}.preview.localhost`;

    for (const path of ['/', '/plans.html', '/missing']) {
      const refused = await visit(`${host}${path}`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      const page = await refused.text();
      expect(page).not.toMatch(/Secret launch|launch plans|plans\.html|protect-default/);
    }
    // The live site stays public.
    expect(await (await visit(`http://${domain}/`)).text()).toContain('launch plans');

    const link = await share(domain, { deploymentId, path: '/plans.html', expiresIn: 600 }, viewer);
    expect(link.url.startsWith(`${host}/.sitehost/grant?grant=`)).toBe(true);
    const { response, cookie } = await openLink(link);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/plans.html');
    const setCookie = response.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Max-Age=(599|600)/);
    expect(setCookie).not.toMatch(/Domain=/i);
    expect(setCookie).not.toMatch(/Secure/);

    const page = await visit(`${host}/plans.html`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('plans');
    expect(page.headers.get('cache-control')).toMatch(/^private\b/);
    expect(page.headers.get('cache-control')).not.toMatch(/public/);
    expect(page.headers.get('vary')).toMatch(/Cookie/);
  });

  it('refuse forged, expired, other-host and revoked grants, and links that would leave the host', async () => {
    const domain = 'protect-hostile.example';
    const other = 'protect-hostile-other.example';
    const first = await (await deploy(domain, { 'index.html': 'one' }, undefined, owner)).json<DeployResult>();
    const second = await (await deploy(other, { 'index.html': 'two' }, undefined, owner)).json<DeployResult>();
    // Its coordinator's default is the suite's ("public"): the site says "members" itself, as revoking keeps what it stores.
    expect((await protect(domain, { previews: 'members', site: 'public' })).status).toBe(200);
    const host = `http://${first.deploymentId}.preview.localhost`;
    const link = await share(domain, { deploymentId: first.deploymentId, expiresIn: 600 });
    const { cookie } = await openLink(link);
    expect((await visit(`${host}/`, { headers: { cookie } })).status).toBe(200);

    // Replayed on another site's host, the cookie opens nothing.
    expect((await visit(`http://${second.deploymentId}.preview.localhost/`, { headers: { cookie } })).status).toBe(401);
    // A grant whose text was changed, or signed with another key.
    const [payload, signature] = cookie.split('=')[1]!.split('.');
    const forged = JSON.parse(atob(payload!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    const otherHost = btoa(JSON.stringify({ ...forged, h: `${second.deploymentId}.preview.localhost` })).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    expect((await visit(`http://${second.deploymentId}.preview.localhost/`, { headers: { cookie: `sitehost_grant=${otherHost}.${signature}` } })).status).toBe(401);
    const foreignKey = await grantKeyOf('not the service secret');
    const epoch = forged.v as string;
    const foreign = await signGrant(foreignKey, { host: `${first.deploymentId}.preview.localhost`, expires: Math.floor(Date.now() / 1000) + 600, epoch, kind: 'link' });
    expect((await visit(`${host}/`, { headers: { cookie: `sitehost_grant=${foreign}` } })).status).toBe(401);
    // The service's own signature on an expired grant.
    const expired = await signGrant(await grantKey(), { host: `${first.deploymentId}.preview.localhost`, expires: Math.floor(Date.now() / 1000) - 1, epoch, kind: 'link' });
    expect((await visit(`${host}/`, { headers: { cookie: `sitehost_grant=${expired}` } })).status).toBe(401);
    expect((await visit(`${host}/.sitehost/grant?grant=${expired}`)).status).toBe(401);
    // A password sign-in's grant does not open a members-only host.
    const signedIn = await signGrant(await grantKey(), { host: `${first.deploymentId}.preview.localhost`, expires: Math.floor(Date.now() / 1000) + 600, epoch, kind: 'password' });
    expect((await visit(`${host}/`, { headers: { cookie: `sitehost_grant=${signedIn}` } })).status).toBe(401);

    // Open redirects: refused when asked for, and a signed path that would leave the host lands on "/".
    for (const path of ['//evil.example/', '/\\evil.example', 'https://evil.example/', 'evil', '/a\nb']) {
      expect(await problemOf(await authorized(`/v2/sites/${domain}/share`, json('POST', { deploymentId: first.deploymentId, path }), owner))).toMatchObject({ status: 400 });
    }
    const leaving = await signGrant(await grantKey(), { host: `${first.deploymentId}.preview.localhost`, expires: Math.floor(Date.now() / 1000) + 600, epoch, kind: 'link', path: '//evil.example/' });
    expect((await visit(`${host}/.sitehost/grant?grant=${leaving}`)).headers.get('location')).toBe('/');

    // Oversized credentials: 431 naming the limit.
    const huge = await visit(`${host}/`, { headers: { cookie: `${cookie}; filler=${'x'.repeat(9000)}` } });
    expect(huge.status).toBe(431);
    expect(await problemOf(huge)).toMatchObject({ limit: 'MAX_CREDENTIAL_HEADER_BYTES', value: 8192 });
    expect(await problemOf(await authorized(`/v2/sites/${domain}/share`, json('POST', { expiresIn: 31 * 86400 }), owner))).toMatchObject({ limit: 'SHARE_LINK_MAX_SECONDS' });

    // The owner revokes every grant: the cookie and the link stop at once.
    expect((await authorized(`/v2/sites/${domain}/share`, { method: 'DELETE' }, viewer)).status).toBe(403);
    expect((await authorized(`/v2/sites/${domain}/share`, { method: 'DELETE' }, owner)).status).toBe(204);
    expect((await visit(`${host}/`, { headers: { cookie } })).status).toBe(401);
    expect((await visit(link.url)).status).toBe(401);
    expect((await openLink(await share(domain, { deploymentId: first.deploymentId }))).response.status).toBe(303);
  });

  it('open an alias host and the site itself, each with a link of its own; a grant of a collected deployment opens nothing', async () => {
    const domain = 'protect-alias.example';
    const form = new FormData();
    form.append('alias', 'feature-x');
    form.append('directory', new File(['aliased'], 'index.html'));
    const deployed = await authorized(`/v2/sites/${domain}?preview=true`, { method: 'PUT', body: form }, owner);
    expect(deployed.status).toBe(200);
    const { aliasUrl, id } = await deployed.json<{ aliasUrl: string; id: string }>();
    expect((await visit(aliasUrl)).status).toBe(401);
    const aliasLink = await share(domain, { alias: 'feature-x' });
    expect(aliasLink.url.startsWith(aliasUrl.replace(/\/$/, ''))).toBe(true);
    const { cookie } = await openLink(aliasLink);
    expect(await (await visit(aliasUrl, { headers: { cookie } })).text()).toBe('aliased');
    // The alias's cookie is not the deployment's own host's.
    expect((await visit(`http://${id}.preview.localhost/`, { headers: { cookie } })).status).toBe(401);

    // A deployment collected since: its host serves nothing, link or not.
    const link = await share(domain, { deploymentId: id });
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' }, owner)).status).toBe(200);
    const gone = await visit(link.url);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('set-cookie')).toBeNull();
    expect((await authorized(`/v2/sites/${domain}/share`, json('POST', { deploymentId: id }), owner)).status).toBe(404);
  });
});

describe('members-only and password-protected sites', () => {
  it("let a member's link in on the site's own host", async () => {
    const domain = 'protect-members.example';
    expect((await deploy(domain, { 'index.html': 'members page' }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    expect((await call(`http://${domain}/`)).status).toBe(401);
    const { cookie, response } = await openLink(await share(domain, {}));
    expect(response.headers.get('location')).toBe('/');
    expect(await (await visit(`http://${domain}/`, { headers: { cookie } })).text()).toBe('members page');
  });

  it('sign in with the right password only, through a form with a CSRF token; a new password signs everyone out', async () => {
    const domain = 'protect-password.example';
    expect((await deploy(domain, { 'index.html': '<title>Board minutes</title>minutes', 'deep/page.html': 'deep' }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'password', password: 'open sesame please' })).status).toBe(200);
    const address = { 'cf-connecting-ip': '203.0.113.10' };

    const asked = await visit(`http://${domain}/deep/page.html`);
    expect(asked.status).toBe(401);
    const form = await asked.text();
    // Nothing of the site; the path asked for comes back only as where to return to.
    expect(form).not.toMatch(/Board minutes|minutes|>deep/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1]!;
    const csrfCookie = cookieFrom(asked);
    expect(/name="to" value="([^"]+)"/.exec(form)![1]).toBe('/deep/page.html');
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      visit(`http://${domain}/.sitehost/sign-in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie, ...address, ...headers }, body: new URLSearchParams(fields).toString() });

    // Another request of the same browser (its icon, another tab) keeps the CSRF cookie the form on screen needs.
    const icon = await visit(`http://${domain}/favicon.ico`, { headers: { cookie: csrfCookie } });
    expect(icon.status).toBe(401);
    expect(icon.headers.get('set-cookie')).toBeNull();
    const wrong = await post({ csrf, to: '/deep/page.html', password: 'open sesame' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That password is not right');
    // Without the token, with another's, or posted from another origin: refused before the password is read.
    expect((await post({ to: '/', password: 'open sesame please' })).status).toBe(403);
    expect((await post({ csrf, to: '/', password: 'open sesame please' }, { cookie: 'sitehost_csrf=another' })).status).toBe(403);
    expect((await post({ csrf, to: '/', password: 'open sesame please' }, { origin: 'http://evil.example' })).status).toBe(403);

    const right = await post({ csrf, to: '//evil.example/', password: 'open sesame please' });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/');
    const cookie = cookieFrom(right);
    const page = await visit(`http://${domain}/deep/page.html`, { headers: { cookie } });
    expect(await page.text()).toBe('deep');
    expect(page.headers.get('cache-control')).toMatch(/^private/);

    // The cookie opens this host only.
    expect((await visit('http://protect-members.example/', { headers: { cookie } })).status).toBe(401);
    // A new password signs every visitor out.
    expect((await protect(domain, { previews: 'members', site: 'password', password: 'another long secret' })).status).toBe(200);
    expect((await visit(`http://${domain}/deep/page.html`, { headers: { cookie } })).status).toBe(401);
  });

  it('rate-limits sign-in attempts per address (SIGN_IN_ATTEMPTS_PER_MINUTE), the right password too', async () => {
    const domain = 'protect-rate.example';
    expect((await deploy(domain, { 'index.html': 'x' }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'password', password: 'rate limited secret' })).status).toBe(200);
    const asked = await visit(`http://${domain}/`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await asked.text())![1]!;
    const post = (password: string, ip = '198.51.100.7') =>
      visit(`http://${domain}/.sitehost/sign-in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieFrom(asked), 'cf-connecting-ip': ip }, body: new URLSearchParams({ csrf, password }).toString() });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) statuses.push((await post(`guess ${attempt}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await post('rate limited secret');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    // Another address is counted apart.
    expect((await post('rate limited secret', '198.51.100.8')).status).toBe(303);
  });
});

describe('caching never leaks', () => {
  it("refuses an anonymous visitor at a location right after it served a signed-in member there", async () => {
    const domain = 'protect-locations.example';
    expect((await deploy(domain, { 'index.html': 'for members', 'app.3f2a9c1b.js': 'code' }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    const { cookie } = await openLink(await share(domain, {}));
    const location = await caches.open('location-a');
    const servedAt = async (path: string, init: RequestInit = {}) => {
      const ctx = createExecutionContext();
      const url = new URL(`http://${domain}${path}`);
      const response = await serveSite(new Request(url, init), url, env, ctx, domain, location);
      const body = await response.text();
      await waitOnExecutionContext(ctx);
      return { status: response.status, body, cacheControl: response.headers.get('cache-control') };
    };
    for (const path of ['/', '/app.3f2a9c1b.js']) {
      const member = await servedAt(path, { headers: { cookie } });
      expect(member.status).toBe(200);
      expect(member.cacheControl).toMatch(/^private/);
      const anonymous = await servedAt(path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).not.toMatch(/for members|code/);
    }
  });

  it("serves a member from the location's cache as it serves an open site, and follows a change of protection and a sign-out at once", async () => {
    const domain = 'protect-warm.example';
    // Past what an isolate keeps in memory, so that it is streamed from the location's cache once stored there.
    const large = 'm'.repeat(1024 * 1024 + 1);
    expect((await deploy(domain, { 'index.html': 'warm members page', 'large.txt': large }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    const { cookie } = await openLink(await share(domain, {}));
    const location = await caches.open('location-b');
    const servedAt = async (path: string, headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const url = new URL(`http://${domain}${path}`);
      const response = await serveSite(new Request(url, { headers }), url, env, ctx, domain, location);
      const body = await response.text();
      await waitOnExecutionContext(ctx);
      return { status: response.status, body, cacheControl: response.headers.get('cache-control'), vary: response.headers.get('vary') };
    };
    for (const path of ['/', '/large.txt']) expect((await servedAt(path, { cookie })).status).toBe(200);

    // With the site's packs gone from R2, a member is still served: from the isolate and the location, as an open site's visitor is.
    const packs = (await env.FILES.list({ prefix: `sites/${domain}/packs/` })).objects.map((object) => object.key);
    expect(packs.length).toBeGreaterThan(0);
    await env.FILES.delete(packs);
    const page = await servedAt('/', { cookie });
    expect(page).toMatchObject({ status: 200, body: 'warm members page', cacheControl: expect.stringMatching(/^private\b/), vary: expect.stringMatching(/Cookie/) });
    const file = await servedAt('/large.txt', { cookie });
    expect(file.status).toBe(200);
    expect(file.body.length).toBe(large.length);
    // What the member's requests stored lets no one else in.
    for (const path of ['/', '/large.txt']) {
      const anonymous = await servedAt(path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).not.toMatch(/warm members page|mmm/);
    }

    // Made public, the site opens to everyone from the same stores; made private again, it refuses them at once.
    expect((await protect(domain, { previews: 'members', site: 'public' })).status).toBe(200);
    expect(await servedAt('/')).toMatchObject({ status: 200, body: 'warm members page', cacheControl: expect.not.stringMatching(/private/) });
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    expect((await servedAt('/')).status).toBe(401);
    expect((await servedAt('/', { cookie })).status).toBe(200);

    // Signing every visitor out refuses the grant the isolate remembers from the member's requests.
    expect((await authorized(`/v2/sites/${domain}/share`, { method: 'DELETE' }, owner)).status).toBe(204);
    for (const path of ['/', '/large.txt']) expect((await servedAt(path, { cookie })).status).toBe(401);
  });
});

describe("_headers' Basic-Auth", () => {
  it('asks for HTTP Basic on its paths only, lets in the right pair, and shows its credentials nowhere', async () => {
    const domain = 'protect-basic.example';
    const headers = '/admin/*\n  Basic-Auth: editor:first-pass-word reviewer:second:pass\n  X-Frame-Options: DENY\n/*\n  X-Robots-Tag: noindex\n';
    const deployed = await deploy(domain, { 'index.html': 'public home', 'admin/index.html': 'admin area', _headers: headers }, undefined, owner);
    expect(deployed.status).toBe(200);
    const { deploymentId } = await deployed.json<DeployResult>();
    const basic = (user: string, password: string) => ({ authorization: `Basic ${btoa(`${user}:${password}`)}` });

    expect(await (await call(`http://${domain}/`)).text()).toBe('public home');
    const asked = await call(`http://${domain}/admin/`);
    expect(asked.status).toBe(401);
    expect(asked.headers.get('www-authenticate')).toBe(`Basic realm="${domain}", charset="UTF-8"`);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    expect(await asked.text()).not.toContain('admin area');
    for (const wrong of [basic('editor', 'second:pass'), basic('nobody', 'first-pass-word'), { authorization: 'Basic !!!' }, { authorization: 'Bearer x' }]) {
      expect((await call(`http://${domain}/admin/`, { headers: wrong })).status).toBe(401);
    }
    for (const right of [basic('editor', 'first-pass-word'), basic('reviewer', 'second:pass')]) {
      // Twice: the second is answered from the isolate's memory of right answers.
      for (let time = 0; time < 2; time++) {
        const page = await call(`http://${domain}/admin/`, { headers: right });
        expect(page.status).toBe(200);
        expect(await page.text()).toBe('admin area');
        expect(page.headers.get('cache-control')).toMatch(/^private/);
        expect(page.headers.get('vary')).toMatch(/Authorization/);
        expect(page.headers.get('x-frame-options')).toBe('DENY');
      }
    }
    // The file itself is still never served, and its credentials are in no answer of the API.
    expect((await call(`http://${domain}/_headers`, { headers: basic('editor', 'first-pass-word') })).status).toBe(404);
    const rules = await (await authorized(`/v2/sites/${domain}/deployments/${deploymentId}/rules`, {}, owner)).text();
    const configuration = await (await authorized(`/v2/sites/${domain}/configuration`, {}, owner)).text();
    for (const answer of [rules, configuration]) expect(answer).not.toMatch(/first-pass-word|second:pass|Basic-Auth|salt/i);
    expect(JSON.parse(rules).headers).toContainEqual({ source: '_headers', uri: '/admin/{+splat}', fields: { 'X-Frame-Options': ['DENY'] }, detach: [] });
  });
});

describe('hostile grants, fuzzed', () => {
  it('opens a protected host to no cookie but the one the service signed for it: payloads of any host, epoch, kind and time, signed with other keys or tampered', async () => {
    const domain = 'protect-fuzz.example';
    expect((await deploy(domain, { 'index.html': 'fuzzed' }, undefined, owner)).status).toBe(200);
    expect((await protect(domain, { previews: 'members', site: 'members' })).status).toBe(200);
    const { cookie } = await openLink(await share(domain, {}));
    expect((await visit(`http://${domain}/`, { headers: { cookie } })).status).toBe(200);
    const token = cookie.slice('sitehost_grant='.length);
    const serviceKey = await grantKey();
    const grant = fc.record({
      host: fc.constantFrom(domain, `www.${domain}`, 'protect-members.example', `${domain}.`, domain.toUpperCase()),
      expires: fc.integer({ min: 0, max: 4_000_000_000 }),
      epoch: fc.string({ maxLength: 30 }),
      kind: fc.constantFrom('link' as const, 'password' as const),
    });
    const cookieValue = fc.oneof(
      // The service's signature on a grant whose epoch is not the site's: refused whatever else it says.
      grant.map((g) => ({ g, key: 'service' as const })),
      grant.map((g) => ({ g, key: 'other' as const })),
      fc.tuple(fc.nat(token.length - 1), fc.constantFrom(...'Aa0-_.=%')).map(([at, character]) => ({ text: `${token.slice(0, at)}${character}${token.slice(at + 1)}` })),
      fc.stringMatching(/^[\x21-\x7e]{0,200}$/).map((text) => ({ text: text.replace(/[;,]/g, '') })),
    );
    await fc.assert(
      fc.asyncProperty(cookieValue, async (value) => {
        let text: string;
        if ('text' in value) text = value.text;
        else text = await signGrant(value.key === 'service' ? serviceKey : await grantKeyOf('another service secret'), value.g);
        fc.pre(text !== token);
        const answer = await visit(`http://${domain}/`, { headers: { cookie: `sitehost_grant=${text}` } });
        expect(answer.status).toBe(401);
        expect(await answer.text()).not.toContain('fuzzed');
      }),
      fuzzParameters(60, 42),
    );
  });
});
