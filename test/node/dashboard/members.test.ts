/**
 * Members, the GitHub trust policy and an operator's suspension controls on the dashboard's site
 * screen, and an operator's Users screen, as people use them: Debian's Chromium, driven by playwright-core, against the real
 * service under `wrangler dev`. Screenshots go to test-results/dashboard/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteMembers } from '../../../src/common/api-types';
import { type RunningService, getFromSite, sharedService, token } from '../support/service';
import { type Browser, openBrowser, signedInTab } from './browser';

const screenshots = new URL('../../../test-results/dashboard/', import.meta.url).pathname;
const domain = 'members-dash.example';
const owner = 'github|dashboard-owner';
const deployer = 'github|dashboard-deployer';

let service: RunningService;
let browser: Browser;
const pageProblems: string[] = [];

/** A new tab (its own session) signed in with `bearer`. */
function signedIn(bearer: string): Promise<Page> {
  return signedInTab(browser, service.origin, bearer, pageProblems);
}

async function openSite(page: Page): Promise<void> {
  await page.goto(`${service.origin}/#/sites/${domain}`);
  await expect.poll(() => page.locator('h1').textContent()).toBe(domain);
}

async function membersOf(): Promise<SiteMembers> {
  const response = await fetch(`${service.origin}/v2/sites/${domain}/members`, { headers: { authorization: `Bearer ${await token(service, owner)}` } });
  return (await response.json()) as SiteMembers;
}

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  [service, browser] = await Promise.all([sharedService(), openBrowser()]);
  const form = new FormData();
  form.append('directory', new File(['<h1>members</h1>'], 'index.html'));
  const deployed = await fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${await token(service, owner)}` }, body: form });
  expect(deployed.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the site screen', () => {
  it('lets the owner add a deployer, set and remove the trust policy, and remove the member', async () => {
    const page = await signedIn(await token(service, owner));
    await openSite(page);
    const members = page.locator('#members');
    await expect.poll(() => members.locator('tbody tr').count()).toBe(1);
    expect(await members.locator('tbody tr').first().textContent()).toContain('owner');

    await page.getByLabel('User id').fill(deployer);
    await page.getByLabel('Role').selectOption('deployer');
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => members.locator('tbody tr', { hasText: deployer }).locator('[data-label="Role"]').textContent()).toBe('deployer');
    expect((await membersOf()).members).toEqual([expect.objectContaining({ userId: deployer, role: 'deployer' })]);

    // The owner as a member: the service's problem, shown; nothing changes.
    await page.getByLabel('User id').fill(owner);
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'owner is not added as a member' }).count()).toBe(1);
    expect((await membersOf()).members).toHaveLength(1);

    await expect.poll(() => page.getByText('No GitHub workflow may deploy this site yet.').count()).toBe(1);
    await page.getByLabel('Repository', { exact: true }).fill('octo-org/site');
    await page.getByLabel('Repository id').fill('101');
    await page.getByLabel('Repository owner id').fill('202');
    await page.getByLabel('Workflow file').fill('deploy.yml');
    await page.getByLabel('Only on ref').fill('refs/heads/main');
    await page.getByRole('button', { name: 'Save trust policy' }).click();
    await expect.poll(() => page.locator('#trust-policy').textContent()).toContain('.github/workflows/deploy.yml');
    expect(await page.locator('#trust-policy').textContent()).toContain('octo-org/site (id 101, owner id 202)');
    await page.screenshot({ path: join(screenshots, 'site-members-trust.png'), fullPage: true });

    await page.getByRole('button', { name: 'Remove trust policy' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByText('No GitHub workflow may deploy this site yet.').count()).toBe(1);

    await members.locator('tbody tr', { hasText: deployer }).getByRole('button', { name: 'Remove' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => members.locator('tbody tr').count()).toBe(1);
    expect((await membersOf()).members).toEqual([]);
    expect(pageProblems).toEqual([]);
  });

  it('shows a deployer the site in My sites with their role and no Unpublish, the members without the controls, and no trust policy', async () => {
    const added = await fetch(`${service.origin}/v2/sites/${domain}/members/${encodeURIComponent(deployer)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(service, owner)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'deployer' }),
    });
    expect(added.status).toBe(201);
    const page = await signedIn(await token(service, deployer));
    const row = page.locator('tbody tr', { hasText: domain });
    await expect.poll(() => row.locator('[data-label="Role"]').textContent()).toBe('deployer');
    expect(await row.getByRole('button', { name: 'Unpublish' }).count()).toBe(0);

    await openSite(page);
    await expect.poll(() => page.locator('#members tbody tr').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    expect(await page.locator('#members').getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await expect.poll(() => page.getByText('Only the site’s owner sees and sets which GitHub workflow may deploy it.').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Operator: suspension' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Operator: the owner’s suspension' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    // The Users screen, reached by its address: no controls, and why.
    await page.goto(`${service.origin}/#/users/${encodeURIComponent(owner)}`);
    await expect.poll(() => page.getByText('Only the service’s operators (a token with the admin scope) see and suspend users.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Suspend user' }).count()).toBe(0);
    expect(pageProblems).toEqual([]);
  });

  it('gives an operator the suspension controls: suspend with a reason the page then shows, and lift it', async () => {
    const page = await signedIn(await token(service, 'github|dashboard-operator', 'admin global_read'));
    await openSite(page);
    await expect.poll(() => page.getByRole('heading', { name: 'Operator: suspension' }).count()).toBe(1);
    await page.getByLabel('Reason, for the owner').fill('Phishing reported (case 4411)');
    await page.getByRole('button', { name: 'Suspend site' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Suspend site' }).click();
    await expect.poll(() => page.locator('#suspended').textContent()).toContain('Phishing reported (case 4411)');
    expect((await getFromSite(service, domain, '/')).status).toBe(451);
    await page.screenshot({ path: join(screenshots, 'site-suspension.png'), fullPage: true });

    await page.getByRole('button', { name: 'Lift suspension' }).click();
    await expect.poll(() => page.locator('#suspended').count()).toBe(0);
    expect(pageProblems).toEqual([]);
  });

  it('gives an operator the owner’s suspension: its state, suspend with a reason once confirmed, and lift it once confirmed', async () => {
    const page = await signedIn(await token(service, 'github|dashboard-operator', 'admin global_read'));
    await openSite(page);
    const state = page.locator('#user-suspension-state');
    await expect.poll(() => state.textContent()).toBe(`${owner} is not suspended.`);
    expect(await page.getByRole('button', { name: 'Lift user suspension' }).isVisible()).toBe(false);

    // Cancelled: nothing is suspended.
    await page.getByLabel('Reason, for the user').fill('Deploys the same phishing site under new names (case 4412)');
    await page.getByRole('button', { name: 'Suspend user' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Cancel' }).click();
    expect((await getFromSite(service, domain, '/')).status).toBe(200);

    await page.getByRole('button', { name: 'Suspend user' }).click();
    const dialog = page.locator('dialog[open]');
    expect(await dialog.textContent()).toContain(`Suspend ${owner}?`);
    await dialog.getByRole('button', { name: 'Suspend user' }).click();
    await expect.poll(() => state.textContent()).toContain('is suspended since');
    expect(await state.textContent()).toContain('(case 4412)');
    expect(await page.locator('#owner-suspended').textContent()).toContain('(case 4412)');
    expect(await page.getByRole('status').filter({ hasText: `Suspended ${owner}: 1 site answers 451.` }).count()).toBe(1);
    expect((await getFromSite(service, domain, '/')).status).toBe(451);
    const whoami = await fetch(`${service.origin}/v2/whoami`, { headers: { authorization: `Bearer ${await token(service, owner)}` } });
    expect(((await whoami.json()) as { suspension?: { reason: string } }).suspension?.reason).toContain('(case 4412)');
    await page.screenshot({ path: join(screenshots, 'user-suspension.png'), fullPage: true });

    await page.getByRole('button', { name: 'Lift user suspension' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Lift user suspension' }).click();
    await expect.poll(() => state.textContent()).toBe(`${owner} is not suspended.`);
    expect(await page.locator('#owner-suspended').count()).toBe(0);
    expect((await getFromSite(service, domain, '/')).status).toBe(200);
    expect(pageProblems).toEqual([]);
  });
});

describe('the Users screen', () => {
  it('lets an operator look up any user, one who owns no site too, see their state, suspend them and lift it, each confirmed', async () => {
    const user = 'github|dashboard-siteless';
    const page = await signedIn(await token(service, 'github|dashboard-operator', 'admin global_read'));
    await page.getByRole('link', { name: 'Users' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Users');
    await page.getByLabel('User id').fill(user);
    await page.getByRole('button', { name: 'Look up' }).click();
    const state = page.locator('#user-suspension-state');
    await expect.poll(() => state.textContent()).toBe(`${user} is not suspended.`);

    await page.getByLabel('Reason, for the user').fill('Signed up to send spam (case 4413)');
    await page.getByRole('button', { name: 'Suspend user' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Suspend user' }).click();
    await expect.poll(() => state.textContent()).toContain('is suspended since');
    expect(await state.textContent()).toContain('(case 4413)');
    expect(await page.locator('#user-sites').textContent()).toBe('They own no site.');
    expect(await page.getByRole('status').filter({ hasText: `Suspended ${user}: they own no site.` }).count()).toBe(1);
    const form = new FormData();
    form.append('directory', new File(['<h1>spam</h1>'], 'index.html'));
    const claim = await fetch(`${service.origin}/v2/sites/siteless-claim.example`, { method: 'PUT', headers: { authorization: `Bearer ${await token(service, user)}` }, body: form });
    expect(claim.status).toBe(403);
    await page.screenshot({ path: join(screenshots, 'users.png'), fullPage: true });

    // Reloaded, the page shows what the service holds.
    await page.reload();
    await expect.poll(() => state.textContent()).toContain('(case 4413)');
    await page.getByRole('button', { name: 'Lift user suspension' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Lift user suspension' }).click();
    await expect.poll(() => state.textContent()).toBe(`${user} is not suspended.`);
    expect(pageProblems).toEqual([]);
  });
});
