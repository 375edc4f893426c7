import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, type SiteResponse, siteAnswer, sharedService, token } from './support/service';

/**
 * A folder brought from Netlify or Cloudflare Pages as it is (./fixtures/migrated-site: real
 * world `_redirects` and `_headers`, a `404.html`), deployed through `npm start` as a browser's
 * folder upload sends it. Every rule answers as it did on the host it came from.
 */
const folder = join(import.meta.dirname, 'fixtures', 'migrated-site');
const domain = 'migrated.example';

let service: RunningService;
let owner: string;

function filesOf(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/** The folder as a deploy form, under a top folder (`dist/`) as browsers send it; `replace` swaps some files' text. */
function deployForm(replace: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const path of filesOf(folder)) {
    const name = relative(folder, path);
    form.append('directory', new File([replace[name] ?? readFileSync(path)], `dist/${name}`));
  }
  return form;
}

function deploy(form: FormData): Promise<Response> {
  return fetch(`${service.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization: `Bearer ${owner}` }, body: form });
}

/** A GET of the site at `http://<domain>.localhost:<port>/`, the path sent as written. */
function fromSite(path: string, headers: Record<string, string> = {}): Promise<SiteResponse> {
  return siteAnswer(service, domain, path, headers);
}

beforeAll(async () => {
  service = await sharedService();
  owner = await token(service, 'github|migrated', 'deploy global_read');
  const response = await deploy(deployForm());
  expect(response.status, await response.clone().text()).toBe(200);
}, 120_000);

describe('a site brought from Netlify or Cloudflare Pages unchanged', () => {
  it.each<[string, string, Record<string, string>, number, string]>([
    ['an old CMS URL', '/index.php', {}, 301, '/'],
    ['a renamed page', '/about-us', {}, 301, '/about'],
    ['a 302', '/blog/feed.xml', {}, 302, '/rss.xml'],
    ['placeholders', '/blog/2019/04/hello', {}, 301, '/blog/hello'],
    ['a forced splat', '/docs/v1/intro', {}, 301, '/docs/intro'],
    ['another origin', '/go/github', {}, 302, 'https://github.com/example'],
    ['a query parameter read into the target', '/product?id=7', {}, 301, '/shop/7'],
    ['a Language condition', '/', { 'accept-language': 'fr-FR,fr;q=0.9' }, 302, '/fr/'],
  ])('redirects %s: %s', async (_, path, headers, status, location) => {
    const response = await fromSite(path, headers);
    expect(response.status).toBe(status);
    expect(response.headers.location).toBe(location);
  });

  it.each<[string, string, number, string]>([
    ['a rewrite of a single-page app’s route to its shell', '/app/settings/profile', 200, '<h1>App shell</h1>'],
    ['a file a rule without "!" does not shadow', '/about', 200, '<h1>About</h1>'],
    ['a 404 rule’s page', '/forum/topic/1', 404, '<h1>Forum closed</h1>'],
    ['a 410 rule’s page', '/press', 410, '<h1>Gone</h1>'],
    ['the home page to a visitor the Language rule does not name', '/', 200, '<h1>Home</h1>'],
    ['the root 404.html for a miss, without a fallback option', '/no/such/page', 404, '<h1>Page not found</h1>'],
    ['_redirects not as a file', '/_redirects', 404, '<h1>Page not found</h1>'],
    ['_headers not as a file', '/_headers', 404, '<h1>Page not found</h1>'],
  ])('serves %s: %s', async (_, path, status, body) => {
    const response = await fromSite(path);
    expect(response.status).toBe(status);
    expect(response.body).toBe(body);
  });

  it('sets the _headers fields, with placeholders, and detaches with "!"', async () => {
    const home = await fromSite('/');
    expect(home.headers['x-frame-options']).toBe('DENY');
    expect(home.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(home.headers['x-robots-tag']).toBe('noindex');
    const asset = await fromSite('/assets/app.3f2a9c1b.css');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['x-robots-tag']).toBeUndefined();
    expect(asset.headers['x-frame-options']).toBe('DENY');
    expect((await fromSite('/blog/hello')).headers['x-post']).toBe('hello');
  });

  it('refuses a deploy with a line it cannot read: 400 naming the file and the line, and the site stays as it was', async () => {
    const redirects = readFileSync(join(folder, '_redirects'), 'utf8').replace('/go/github              https://github.com/example  302', '/api/*  https://api.example.com/:splat  200');
    const response = await deploy(deployForm({ _redirects: redirects }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await response.json()) as Record<string, unknown>;
    const line = redirects.split('\n').findIndex((text) => text.startsWith('/api/*')) + 1;
    expect(problem).toMatchObject({ type: '/problems/invalid-rules-file', status: 400, file: '_redirects', line });
    expect(problem.detail).toContain(`_redirects line ${line}:`);
    expect((await fromSite('/go/github')).headers.location).toBe('https://github.com/example');
  });
});
