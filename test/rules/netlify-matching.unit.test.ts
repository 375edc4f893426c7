/**
 * Which rule answers a request, and where it sends it: the service's matcher
 * (src/rules/compiled-rules.ts) against `netlify-redirector`, the matcher Netlify's CLI serves
 * `netlify dev` with (WebAssembly, so this runs in Node), on rules and requests from Netlify's
 * documentation and from real sites. Both read the same `_redirects` text. Where the two differ
 * on purpose, docs/migrating.md says so, and `differences` below lists the request.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRequestPath } from '../../src/http/request-path';
import { compileSiteRules, firstRedirect, preferredLanguage } from '../../src/rules/compiled-rules';
import { parseRedirectsFile } from '../../src/rules/redirects-file';

interface NetlifyMatch {
  status: number;
  to: string;
}
interface NetlifyMatcher {
  match(request: Record<string, unknown>): NetlifyMatch | null | undefined;
}
const redirector = createRequire(import.meta.url)('netlify-redirector') as { parsePlain(rules: string, options: object): Promise<NetlifyMatcher> };

const rules = `
# Netlify's documented forms (docs.netlify.com, "Redirects and rewrites")
/home              /
/blog/my-post.php  /blog/my-post
/cuties            https://www.petsofnetlify.com
/my-redirect       /                 302
/pass-through      /index.html       200
/ecommerce         /store-closed     404
/store id=:id      /blog/:id         301
/articles id=:id tag=:tag /posts/:tag/:id 301
/news/*            /blog/:splat
/israel/*          /israel/he/:splat 302 Language=he
# From real sites, deployed unchanged
/pkg/* go-get=1    /go.html          200
/:lang/old         /:lang/new        301
/:lang/guide/      /guide-:lang      301
/                  /de/              302! Language=de
/docs/:version/*   /manual/:version/:splat 301
/:lang/*           /404.html         404
`;

interface Request {
  path: string;
  query?: string;
  acceptLanguage?: string;
}

const requests: Request[] = [
  { path: '/home' },
  { path: '/home/' },
  { path: '/blog/my-post.php' },
  { path: '/cuties' },
  { path: '/my-redirect/' },
  { path: '/pass-through' },
  { path: '/ecommerce' },
  { path: '/store', query: 'id=42' },
  { path: '/store' },
  { path: '/articles', query: 'id=7&tag=cats' },
  { path: '/articles', query: 'id=7' },
  { path: '/news' },
  { path: '/news/' },
  { path: '/news/a/b' },
  { path: '/news/a/b/' },
  { path: '/israel/tel-aviv', acceptLanguage: 'he' },
  { path: '/israel/tel-aviv', acceptLanguage: 'en' },
  { path: '/pkg', query: 'go-get=1' },
  { path: '/pkg/', query: 'go-get=1' },
  { path: '/pkg/sub/module', query: 'go-get=1' },
  { path: '/pkg' },
  { path: '/en/old' },
  { path: '/en/old/' },
  { path: '/en/guide' },
  { path: '/en/guide/' },
  { path: '/en/other/page' },
  { path: '/', acceptLanguage: 'de-DE,de;q=0.9' },
  { path: '/', acceptLanguage: 'de' },
  { path: '/', acceptLanguage: 'en-US,en;q=0.9,de;q=0.5' },
  { path: '/' },
  { path: '/docs/v2/intro/start' },
  { path: '/docs/v2' },
  { path: '/unknown' },
];

/** Netlify's CLI passes the first range of Accept-Language, cut to its language (`getLanguage`). */
function netlifyLanguage(header: string | undefined): string {
  return header ? header.split(',')[0]!.slice(0, 2) : 'en';
}

function ours(request: Request, text = rules): NetlifyMatch | undefined {
  const compiled = compileSiteRules({ redirects: parseRedirectsFile(text), headers: [] });
  const match = firstRedirect(
    compiled,
    parseRequestPath(request.path),
    { protocol: 'https:', host: 'example.com', query: new URLSearchParams(request.query ?? ''), language: preferredLanguage(request.acceptLanguage ?? null) },
    () => false,
  );
  return match && { status: match.rule.status, to: match.rule.to.expand(match.values) };
}

async function netlify(request: Request, text = rules): Promise<NetlifyMatch | undefined> {
  const matcher = await redirector.parsePlain(text, {});
  const headers = { 'x-language': netlifyLanguage(request.acceptLanguage) };
  const match = matcher.match({
    scheme: 'https',
    host: 'example.com',
    path: request.path,
    query: request.query ?? '',
    headers,
    getHeader: (name: string) => headers[name.toLowerCase() as 'x-language'] ?? '',
    getCookie: () => '',
  });
  return match ? { status: match.status, to: match.to } : undefined;
}

describe('which rule answers, against netlify-redirector', () => {
  it.each(requests)('%j', async (request) => {
    expect(ours(request)).toEqual(await netlify(request));
  });
});

/**
 * Astro's documentation site (./rules-corpus/astro-docs/_redirects, 49 rules), among them
 * `/:lang:/…` segments: each rule's path with its placeholders filled (`en`, and `a/b` for `*`),
 * with and without its trailing slash, answers as on Netlify.
 */
describe("a real site's file, against netlify-redirector", () => {
  const astro = readFileSync(join(import.meta.dirname, 'rules-corpus', 'astro-docs', '_redirects'), 'utf8');
  const paths = astro
    .split('\n')
    .filter((line) => /^\s*\//.test(line))
    .map((line) => line.trim().split(/\s+/)[0]!.replace(/:[^/]+/g, 'en').replace('*', 'a/b'))
    .flatMap((path) => [path, path.endsWith('/') ? path.slice(0, -1) || '/' : `${path}/`]);

  it('has requests for every rule, among them the `:lang:` ones', () => {
    expect(paths).toHaveLength(98);
    expect(paths).toContain('/en/reference/components-reference/');
  });

  it.each(paths)('%s', async (path) => {
    expect(ours({ path }, astro)).toEqual(await netlify({ path }, astro));
  });

  it('sends /en/reference/components-reference/ where Netlify does', async () => {
    expect(ours({ path: '/en/reference/components-reference/' }, astro)).toEqual({ status: 301, to: '/en/guides/syntax-highlighting/' });
  });
});
