/**
 * Signing in to the dashboard through an OpenID Connect provider: authorization code flow
 * with PKCE, entirely in the browser (public client), against a provider on loopback whose
 * access tokens the Worker verifies through AUTH_JWKS_URL.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Service, startService } from '../support/service';
import { type Browser, openBrowser } from './browser';
import { type OpenIdProvider, startOpenIdProvider } from './openid-provider';

const clientId = 'sitehost-dashboard';
let provider: OpenIdProvider;
let service: Service;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  provider = await startOpenIdProvider({ clientId, audience: 'sitehost', user: 'oidc|alice', scope: 'deploy global_read' });
  [service, browser] = await Promise.all([
    startService({ vars: { AUTH_ISSUER: provider.issuer, AUTH_JWKS_URL: provider.jwksUrl, AUTH_CLIENT_ID: clientId } }),
    openBrowser(),
  ]);
  page = await browser.context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await provider?.stop();
});

it('publishes the public client and lets the page reach the provider, and nothing else', async () => {
  const config = await (await fetch(`${service.origin}/dashboard/config.json`)).json();
  expect(config.openId).toEqual({ issuer: provider.issuer, clientId, audience: 'sitehost', scope: 'openid deploy global_read' });
  const policy = (await fetch(`${service.origin}/`)).headers.get('content-security-policy');
  const issuerOrigin = new URL(provider.issuer).origin;
  expect(policy).toContain(`connect-src 'self' ${issuerOrigin} ${issuerOrigin.replace('127.0.0.1', 'localhost')};`);
});

it('signs in with the authorization code flow and PKCE, then calls the API with the access token', async () => {
  await page.goto(`${service.origin}/`);
  await page.screenshot({ path: new URL('../../../test-results/dashboard/13-sign-in-openid.png', import.meta.url).pathname, fullPage: true });
  await page.getByRole('button', { name: `Sign in with ${new URL(provider.issuer).host}` }).click();
  await expect.poll(() => page.locator('h1').textContent(), { timeout: 10_000 }).toBe('My sites');
  await expect.poll(() => page.locator('main').textContent()).toContain('You have no sites yet');
  expect(await page.locator('.account').textContent()).toContain('oidc|alice');
  // The code and state are gone from the address bar.
  expect(new URL(page.url()).search).toBe('');

  const [authorization] = provider.authorizations;
  expect(authorization?.get('client_id')).toBe(clientId);
  expect(authorization?.get('redirect_uri')).toBe(`${service.origin}/`);
  expect(authorization?.get('code_challenge_method')).toBe('S256');
  expect(authorization?.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  expect(authorization?.get('audience')).toBe('sitehost');
});

it('refuses a provider response that this tab did not ask for', async () => {
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${service.origin}/?code=forged&state=forged`);
  await expect.poll(() => page.getByRole('alert').textContent()).toContain('not started from this tab');
  expect(await page.locator('h1').textContent()).toBe('Sign in');
});
