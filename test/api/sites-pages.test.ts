import { beforeAll, describe, expect, it } from 'vitest';
import { authorized, deploy, problemOf } from '../support/client';

const user = 'github|pages';
const domains = Array.from({ length: 7 }, (_, index) => `page-${index}.example`);

function list(path: string): Promise<Response> {
  return authorized(path, {}, { user });
}

/** The target of a `Link: <target>; rel="next"` header, or undefined without one. */
function nextOf(response: Response): string | undefined {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, `a next link: ${link}`).not.toBeNull();
  return match![1];
}

async function domainsOf(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  return ((await response.json()) as { domain: string }[]).map((site) => site.domain);
}

beforeAll(async () => {
  // Deployed out of order: pages follow the domains' order, not the deploys'.
  for (const domain of [...domains].reverse()) expect((await deploy(domain, { 'index.html': domain }, undefined, { user })).status).toBe(200);
  await deploy('page-other-user.example', { 'index.html': 'x' }, undefined, { user: 'github|pages-other' });
});

describe('GET /v2/sites in pages', () => {
  it('answers the whole list without a limit, and no Link', async () => {
    const response = await list('/v2/sites');
    expect(await domainsOf(response)).toEqual(domains);
    expect(response.headers.get('link')).toBeNull();
  });

  it.each([1, 3, 7, 10])('follows Link rel="next" with limit=%i through every site once, in order', async (limit) => {
    const seen: string[] = [];
    let next: string | undefined = `/v2/sites?limit=${limit}`;
    let pages = 0;
    while (next !== undefined) {
      const response = await list(next);
      const page = await domainsOf(response);
      expect(page.length).toBeLessThanOrEqual(limit);
      seen.push(...page);
      next = nextOf(response);
      pages++;
    }
    expect(seen).toEqual(domains);
    expect(pages).toBe(Math.max(1, Math.ceil(domains.length / limit)));
  });

  it('refuses a limit above 1000 with a 400 naming it, and a limit that is not a whole number from 1', async () => {
    const tooMany = await list('/v2/sites?limit=1001');
    expect(tooMany.status).toBe(400);
    expect(await problemOf(tooMany)).toMatchObject({ status: 400, limit: 'MAX_PAGE_SIZE', value: 1000 });
    expect((await list('/v2/sites?limit=1000')).status).toBe(200);
    for (const bad of ['0', '-1', '2.5', 'ten', '']) {
      const response = await list(`/v2/sites?limit=${bad}`);
      expect(response.status, `limit=${bad}`).toBe(400);
      expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-request' });
    }
    expect((await list(`/v2/sites?cursor=${'x'.repeat(254)}`)).status).toBe(400);
  });
});
