import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/rules/headers-file';
import { parseRedirectsFile } from '../../src/rules/redirects-file';
import type { SiteRules } from '../../src/rules/rules-files';
import { Problem } from '../../src/http/problem';
import { parseRequestPath } from '../../src/http/request-path';
import { compileSiteRules, firstRedirect } from '../../src/rules/compiled-rules';
import { fuzzParameters, fuzzTimeout } from './settings';

/** Pieces real files are made of, and characters that are not, so lines are near-misses as often as rules. */
const token = fc.oneof(
  fc.constantFrom('/', '/a', '/a/*', '/:x', '/b/:y/:z', '/:l:', '/:l:/x', '/:a-b:c', '*', '/:splat', 'https://h.example/*', 'http://', '//x', '/\\x', '{', '}', '%', '#'),
  fc.constantFrom('200', '301', '302!', '404', '410', '999', '301!!', 'x=:x', 'q=1', 'Country=us', 'Language=en,fr', 'Role=admin', '='),
  fc.constantFrom('X-A: b', 'X-A:', '! X-A', '!', 'Content-Length: 1', ':title', ': v', 'X A: b'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
const line = fc.array(token, { maxLength: 6 }).map((tokens) => tokens.join(' '));
const file = fc.array(fc.oneof(line, line.map((text) => `  ${text}`)), { maxLength: 12 }).map((lines) => lines.join('\n'));

/** Either rules, or a 400 naming a line of the file; never another error. */
function readOrRefuse<T>(text: string, read: (text: string) => T): T | undefined {
  try {
    return read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    const problem = error as Problem;
    expect(problem.kind).toBe('invalid-rules-file');
    const { line } = problem.options.extensions as { line: number };
    // Every bad line is listed (a limit passed stops the reading at its line).
    const lines = (problem.options.errors as { line: number }[] | undefined)?.map((error) => error.line) ?? [line];
    expect(lines[0]).toBe(line);
    for (const listed of lines) {
      expect(listed).toBeGreaterThanOrEqual(1);
      expect(listed).toBeLessThanOrEqual(text.split('\n').length);
    }
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    return undefined;
  }
}

describe('_redirects and _headers from any text', () => {
  it('are read into rules that compile and match, or refused with a 400 naming a line of the file', () => {
    fc.assert(
      fc.property(file, file, fc.webPath(), (redirectsText, headersText, path) => {
        const redirects = readOrRefuse(redirectsText, parseRedirectsFile) ?? [];
        const headers = readOrRefuse(headersText, parseHeadersFile) ?? [];
        const rules = compileSiteRules({ redirects, headers } satisfies SiteRules);
        let requestPath;
        try {
          requestPath = parseRequestPath(new URL(path || '/', 'http://x').pathname);
        } catch {
          return;
        }
        const request = { protocol: 'https:', host: 'h.example', query: new URLSearchParams('x=1&q=1'), country: 'US', language: 'en' };
        const match = firstRedirect(rules, requestPath, request, () => false);
        match?.rule.to.expand(match.values);
        rules.headers.all(requestPath);
      }),
      fuzzParameters(300),
    );
  }, fuzzTimeout(300, 20));
});

describe('placeholder values from any request', () => {
  const rules = compileSiteRules({
    redirects: parseRedirectsFile(['/go u=:u /:u 302', '/q id=:id /fr.html?x=:id&y=1 302', '/s/* /t/:splat 301', '/p/:p /r/:p 301'].join('\n')),
    headers: [],
  });
  const expand = (path: string, query: string) => {
    const match = firstRedirect(rules, parseRequestPath(path), { protocol: 'https:', host: 'h.example', query: new URLSearchParams(query), language: undefined }, () => false);
    return match?.rule.to.expand(match.values);
  };
  const value = fc.string({ unit: 'binary', maxLength: 24 });
  /** As a URL's text carries it: a lone surrogate is U+FFFD. */
  const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

  it('never make a target that leaves the site, and a query value stays one query value', () => {
    fc.assert(
      fc.property(value, (text) => {
        const query = new URLSearchParams({ u: text, id: text }).toString();
        const inPath = expand('/go', query);
        if (inPath !== undefined) {
          expect(inPath).not.toMatch(/^[/\\][/\\]/);
          expect(new URL(inPath, 'https://h.example/').origin).toBe('https://h.example');
        }
        const inQuery = expand('/q', query)!;
        const url = new URL(inQuery, 'https://h.example/');
        expect([url.pathname, url.searchParams.getAll('x'), url.searchParams.getAll('y'), url.hash]).toEqual(['/fr.html', [wellFormed(text)], ['1'], '']);
      }),
      fuzzParameters(300, 1),
    );
  });

  it('keep a path value in the path, segment for segment', () => {
    fc.assert(
      fc.property(fc.array(value.filter((segment) => segment !== '' && segment !== '.' && segment !== '..' && !/[/\\\u0000-\u001f\u007f-\u009f]/.test(segment)), { minLength: 1, maxLength: 3 }), (segments) => {
        const encoded = segments.map((segment) => encodeURIComponent(wellFormed(segment))).join('/');
        let target: string | undefined;
        try {
          target = expand(`/s/${encoded}`, '');
        } catch {
          return;
        }
        if (target === undefined) return;
        const url = new URL(target, 'https://h.example/');
        expect([url.origin, url.search, url.hash]).toEqual(['https://h.example', '', '']);
        expect(parseRequestPath(url.pathname).segments).toEqual(parseRequestPath(`/t/${encoded}`).segments);
      }),
      fuzzParameters(300, 2),
    );
  });
});
