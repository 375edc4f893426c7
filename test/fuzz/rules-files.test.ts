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
  fc.constantFrom('/', '/a', '/a/*', '/:x', '/b/:y/:z', '*', '/:splat', 'https://h.example/*', 'http://', '//x', '/\\x', '{', '}', '%', '#'),
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
    expect(line).toBeGreaterThanOrEqual(1);
    expect(line).toBeLessThanOrEqual(text.split('\n').length);
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
