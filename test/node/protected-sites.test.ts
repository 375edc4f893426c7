/**
 * Protected previews and sites in Chromium (docs/design.md, "Protected sites"): what an anonymous
 * visitor sees, a member's share link in a browser that never signed in anywhere, a password
 * site's form, and a Netlify folder whose `_headers` asks for HTTP Basic.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployResult } from '../../src/common/api-types';
import type { ShareLink } from '../../src/common/protection-types';
import { type Browser, openBrowser } from './dashboard/browser';
import { type RunningService, sharedService, siteAnswer, token } from './support/service';

let service: RunningService;
let browser: Browser;
let page: Page;
let ownerToken: string;

beforeAll(async () => {
  [service, browser] = await Promise.all([sharedService(), openBrowser()]);
  ownerToken = await token(service, 'github|protected-sites-owner');
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${ownerToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

async function deployFolder(domain: string, files: Record<string, string>): Promise<DeployResult> {
  const form = new FormData();
  for (const [path, content] of Object.entries(files)) form.append('directory', new File([content], `site/${path}`));
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${ownerToken}` }, body: form });
  if (!response.ok) throw new Error(`deploy ${domain}: ${response.status} ${await response.text()}`);
  return response.json();
}

const siteOrigin = (host: string) => `http://${host}.localhost:${service.port}`;
const previewOrigin = (id: string) => `http://${id}.preview.localhost:${service.port}`;

/** A browser that has never signed in anywhere: no cookie of any host. */
async function freshBrowser(): Promise<void> {
  await browser.context.clearCookies();
  await browser.context.setHTTPCredentials(null);
}

describe('protected hosts in Chromium', () => {
  it("shows an anonymous visitor of a new site's preview the sign-in page, and nothing of the site", async () => {
    await freshBrowser();
    const { deploymentId } = await deployFolder('chromium-protected.example', { 'index.html': '<title>Roadmap 2027</title><h1>Secret roadmap</h1>' });
    const answer = await page.goto(`${previewOrigin(deploymentId)}/`);
    expect(answer?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('This site is private');
    expect(await page.title()).toBe('This site is private');
    expect(await page.content()).not.toMatch(/Roadmap|Secret roadmap/);
  });

  it("lets a member's share link in, in a fresh browser, with the grant out of the address bar, until it is revoked or expires", async () => {
    const domain = 'chromium-share.example';
    const { deploymentId } = await deployFolder(domain, { 'index.html': '<h1>Home</h1>', 'docs/index.html': '<h1>Private docs</h1>' });
    await freshBrowser();
    const link = await api<ShareLink>('POST', `/v2/sites/${domain}/share`, { deploymentId, path: '/docs/', expiresIn: 600 });
    expect(link.protected).toBe(true);
    await page.goto(link.url);
    expect(page.url()).toBe(`${previewOrigin(deploymentId)}/docs/`);
    expect(await page.locator('h1').textContent()).toBe('Private docs');
    // Other pages of the host open with the cookie the link set.
    const home = await page.goto(`${previewOrigin(deploymentId)}/`);
    expect(home?.status()).toBe(200);
    expect(home?.headers()['cache-control']).toMatch(/^private/);

    await api('DELETE', `/v2/sites/${domain}/share`);
    const revoked = await page.reload();
    expect(revoked?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('This site is private');

    // A link that lives a second: it opens the host, then the host refuses it.
    await freshBrowser();
    const brief = await api<ShareLink>('POST', `/v2/sites/${domain}/share`, { deploymentId, expiresIn: 1 });
    const opened = await page.goto(brief.url);
    expect([200, 401]).toContain(opened?.status());
    await expect
      .poll(async () => (await page.goto(`${previewOrigin(deploymentId)}/`))?.status(), { timeout: 20_000, interval: 500 })
      .toBe(401);
  });

  it('lets the right password in only, through the sign-in form on the site', async () => {
    const domain = 'chromium-password.example';
    await deployFolder(domain, { 'index.html': '<h1>Board minutes</h1>', 'march.html': '<h1>March minutes</h1>' });
    await api('PUT', `/v2/sites/${domain}/protection`, { previews: 'members', site: 'password', password: 'a long board password' });
    await freshBrowser();
    const asked = await page.goto(`${siteOrigin(domain)}/march.html`);
    expect(asked?.status()).toBe(401);
    expect(await page.content()).not.toContain('minutes');
    await page.getByLabel('Password').fill('a wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That password is not right.');
    expect(await page.content()).not.toContain('minutes');
    await page.getByLabel('Password').fill('a long board password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('March minutes');
    expect(page.url()).toBe(`${siteOrigin(domain)}/march.html`);
  });

  it("deploys a Netlify folder whose _headers protects a path with Basic-Auth unchanged, and asks for it there", async () => {
    const domain = 'chromium-basic.example';
    // As Netlify documents it: https://docs.netlify.com/manage/security/secure-access-to-sites/basic-authentication-with-custom-http-headers/
    const headers = ['/*', '  X-Frame-Options: DENY', '', '/staff/*', '  Basic-Auth: someuser:somepassword anotheruser:anotherpassword', ''].join('\n');
    await deployFolder(domain, { 'index.html': '<h1>Welcome</h1>', 'staff/index.html': '<h1>Staff only</h1>', _headers: headers });
    await freshBrowser();
    expect((await page.goto(`${siteOrigin(domain)}/`))?.status()).toBe(200);
    // Chromium meets the challenge and, with no credentials to give, stops: it is asked for them.
    const challenged = await siteAnswer(service, domain, '/staff/');
    expect(challenged.status).toBe(401);
    expect(challenged.headers['www-authenticate']).toBe(`Basic realm="${domain}", charset="UTF-8"`);
    expect(challenged.body).not.toContain('Staff only');
    const refusedWith = async (credentials: { username: string; password: string }) => {
      await browser.context.setHTTPCredentials(credentials);
      return page.goto(`${siteOrigin(domain)}/staff/`).then(
        (answer) => String(answer?.status()),
        (error: Error) => (/ERR_INVALID_AUTH_CREDENTIALS/.test(error.message) ? 'asked again' : error.message),
      );
    };
    expect(await refusedWith({ username: 'anotheruser', password: 'somepassword' })).toMatch(/^(401|asked again)$/);
    expect(await refusedWith({ username: 'anotheruser', password: 'anotherpassword' })).toBe('200');
    expect(await page.locator('h1').textContent()).toBe('Staff only');
  });
});
