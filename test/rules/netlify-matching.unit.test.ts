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
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/http/problem';
import { parseRequestPath } from '../../src/http/request-path';
import { compileSiteRules, firstRedirect, preferredLanguage } from '../../src/rules/compiled-rules';
import { parseRedirectsFile } from '../../src/rules/redirects-file';
import { fuzzParameters } from '../fuzz/settings';

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

/**
 * Colons where netlify-redirector reads them (src/rules/netlify-placeholders.ts): a segment that
 * starts with `:` is one placeholder named by the rest of it, any other `:` is text, and a target
 * takes each placeholder's value wherever `:name` is written, the path's first, then `:splat`,
 * then the query's. Each rule alone in its file, each request answered as on Netlify.
 */
const colonRules: [rule: string, expected: [request: Request, answer: NetlifyMatch | undefined][]][] = [
  // Text: a `:` that does not start a segment.
  ['/x:na:me /y/:na:me 301', [[{ path: '/x:na:me' }, { status: 301, to: '/y/:na:me' }], [{ path: '/x:na:me/' }, { status: 301, to: '/y/:na:me' }], [{ path: '/xabc' }, undefined], [{ path: '/x:na' }, undefined]]],
  ['/file.:ext /f/:ext 301', [[{ path: '/file.:ext' }, { status: 301, to: '/f/:ext' }], [{ path: '/file.html' }, undefined]]],
  ['/: /t 301', [[{ path: '/:' }, { status: 301, to: '/t' }], [{ path: '/q' }, undefined]]],
  // One placeholder for the segment, named by the rest of it.
  ['/:a:b /c/:a:b/:a/:b 301', [[{ path: '/foo' }, { status: 301, to: '/c/foo/:a/:b' }], [{ path: '/foo/' }, { status: 301, to: '/c/foo/:a/:b' }], [{ path: '/foo/bar' }, undefined]]],
  ['/a/:b:/c /d/:b:/:b 301', [[{ path: '/a/zz/c' }, { status: 301, to: '/d/zz/:b' }], [{ path: '/a/zz/c/' }, { status: 301, to: '/d/zz/:b' }], [{ path: '/a/c' }, undefined]]],
  ['/:lang:/x /y/:lang:/:lang 301', [[{ path: '/en/x' }, { status: 301, to: '/y/en/:lang' }]]],
  ['/:a-:b /c/:a/:b/:a-:b 301', [[{ path: '/x-y' }, { status: 301, to: '/c/:a/:b/x-y' }], [{ path: '/x' }, { status: 301, to: '/c/:a/:b/x' }]]],
  ['/:1x/:a* /t/:1x/:a* 301', [[{ path: '/1/2' }, { status: 301, to: '/t/1/2' }]]],
  ['/:a:b/* /t/:a:b/:splat 301', [[{ path: '/q/r/s' }, { status: 301, to: '/t/q/r/s' }], [{ path: '/q' }, { status: 301, to: '/t/q/' }]]],
  // `:name` filled wherever it is written, a longer word's start too, in Netlify's order.
  ['/:a/:ab /t/:ab/:a.x 301', [[{ path: '/1/2' }, { status: 301, to: '/t/1b/1.x' }]]],
  ['/:ab/:a /t/:ab/:a/:abc 301', [[{ path: '/1/2' }, { status: 301, to: '/t/1/2/1c' }]]],
  ['/:a /t/:a:a 301', [[{ path: '/1' }, { status: 301, to: '/t/11' }]]],
  ['/:a/:a /t/:a 301', [[{ path: '/q/r' }, { status: 301, to: '/t/q' }]]],
  ['/:spl/* /t/:splat/:spl 301', [[{ path: '/q/r' }, { status: 301, to: '/t/qat/q' }]]],
  ['/:a/:b https://:a.example/?x=:b 301', [[{ path: '/q/r' }, { status: 301, to: 'https://q.example/?x=r' }]]],
  // Query placeholders: any name, filled after the path's.
  ['/s id=:a:b /t/:a:b 301', [[{ path: '/s', query: 'id=5' }, { status: 301, to: '/t/5' }], [{ path: '/s' }, undefined]]],
  ['/s/:pq id=:p /t/:p/:pq 301', [[{ path: '/s/x', query: 'id=5' }, { status: 301, to: '/t/5/x' }]]],
  ['/s/:p id=:p /t/:p 301', [[{ path: '/s/x', query: 'id=5' }, { status: 301, to: '/t/x' }]]],
  ['/s id=:1 /t/:1 301', [[{ path: '/s', query: 'id=5' }, { status: 301, to: '/t/5' }]]],
  ['/s id=: /t/: 301', [[{ path: '/s', query: 'id=5' }, { status: 301, to: '/t/5' }], [{ path: '/s' }, undefined]]],
];

describe('colons, as netlify-redirector reads them', () => {
  it.each(colonRules.flatMap(([rule, expected]) => expected.map(([request, answer]) => [rule, request, answer] as const)))('%s: %j', async (rule, request, answer) => {
    expect(await netlify(request, rule)).toEqual(answer);
    expect(ours(request, rule)).toEqual(answer);
  });
});

/** Where the two differ on purpose (docs/migrating.md, "Matching is Netlify's"): the rule, the request, Netlify's answer and the service's. */
const differences: [rule: string, request: Request, theirs: NetlifyMatch, ours: NetlifyMatch][] = [
  // A value is never read again as a placeholder: `:b`, the request's text in `:a`, stays text.
  ['/:a/:b /t/:a 301', { path: '/:b/x' }, { status: 301, to: '/t/x' }, { status: 301, to: '/t/:b' }],
];

describe('where the service differs from netlify-redirector on purpose', () => {
  it.each(differences)('%s: %j', async (rule, request, theirs, answer) => {
    expect(await netlify(request, rule)).toEqual(theirs);
    expect(ours(request, rule)).toEqual(answer);
  });
});

/**
 * Any path with colons in any place, maybe a query placeholder (`k=:name`, any name, empty too),
 * and a target writing their names, near-names, `:splat` and text: each request a path the rule
 * reads, filled with digits or with the pattern's own text, and near-misses, answers as on
 * Netlify. Values are digits and names have none, and the pattern's own text meets no query
 * placeholder, so no value can be read as a name (Netlify's matcher would read one, where this
 * service never does: `differences` above).
 */
describe('a path with colons anywhere, against netlify-redirector', () => {
  const text = fc.stringMatching(/^[ab:.-]{1,4}$/).filter((segment) => !/^\.+$/.test(segment));
  const isPlaceholder = (segment: string) => segment.length > 1 && segment.startsWith(':');
  const rule = fc
    .record({
      segments: fc.array(text, { minLength: 1, maxLength: 3 }),
      splat: fc.boolean(),
      slash: fc.boolean(),
      query: fc.option(fc.stringMatching(/^[ab:.-]{0,3}$/), { nil: undefined }),
    })
    .chain(({ segments, splat, slash, query }) => {
      const path = `/${segments.join('/')}${splat ? '/*' : slash ? '/' : ''}`;
      const names = [...segments.filter(isPlaceholder), ...(query === undefined ? [] : [`:${query}`])];
      const piece = fc.oneof(text, fc.constantFrom(...names, ':splat', ':a', ':b'), text.map((written) => `:${written}`));
      return fc.record({
        line: fc.array(piece, { minLength: 1, maxLength: 2 }).map((pieces) => `${path}${query === undefined ? '' : ` k=:${query}`} /t/${pieces.join('')} 301`),
        splat: fc.constant(splat),
        requests: fc.array(fc.stringMatching(/^[0-9]{1,3}$/), { minLength: segments.length + 1, maxLength: segments.length + 1 }).map((values): Request[] => {
          const filled = segments.map((segment, at) => (isPlaceholder(segment) ? values[at]! : segment));
          const own = `/${segments.join('/')}`;
          const paths = [own, `${own}/`, `/${filled.join('/')}`, `/${filled.join('/')}/z/${values.at(-1)}`, `/${filled.slice(0, -1).join('/')}`];
          if (query === undefined) return paths.map((path) => ({ path }));
          // The pattern's own text, a value holding `:`, is not given to a query placeholder's name to read.
          return paths.flatMap((path, at) => [{ path }, ...(at < 2 ? [] : [{ path, query: `k=${values[0]}` }])]);
        }),
      });
    });

  it('reads and matches it as Netlify does', async () => {
    await fc.assert(
      fc.asyncProperty(rule, async ({ line, splat, requests }) => {
        let refused: unknown;
        try {
          parseRedirectsFile(line);
        } catch (error) {
          refused = error;
        }
        if (refused) {
          // The one such line refused (docs/migrating.md): `:splat` that no `*` fills, which Netlify sends as text.
          expect([splat, (refused as Problem).detail]).toEqual([false, '_redirects line 1: the target uses ":splat", but the path has no "*" to fill it.']);
          return;
        }
        for (const request of requests) {
          expect(ours(request, line), `${line} for ${JSON.stringify(request)}`).toEqual(await netlify(request, line));
        }
      }),
      fuzzParameters(300, 3),
    );
  });
});
