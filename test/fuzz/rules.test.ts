/**
 * Hostile rules, in the Worker's runtime without the Worker: `_redirects` and `_headers` from any
 * text, placeholder values from any request, and templated rules on hostile paths.
 */
import fc from 'fast-check';
import uriTemplate, { type TemplateValues } from 'uri-templates';
import { describe, expect, it } from 'vitest';
import { checkHostConfiguration } from '../../src/configuration/parse';
import { Problem } from '../../src/http/problem';
import { type RequestPath, decodedPath, formattedPath, parseRequestPath } from '../../src/http/request-path';
import { compileSiteRules, firstRedirect } from '../../src/rules/compiled-rules';
import { parseHeadersFile } from '../../src/rules/headers-file';
import { pathTemplate } from '../../src/rules/path-template';
import { parseRedirectsFile } from '../../src/rules/redirects-file';
import type { SiteRules } from '../../src/rules/rules-files';
import { TemplateMatcher } from '../../src/rules/template-matcher';
import { hostOptionsOf } from '../../src/serving/host-options';
import { requestPath } from './arbitraries/request-target';
import { longPath, longTemplate, plainCharacters, shortPath, shortTemplate, templateValues } from './arbitraries/uri-template';
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

/** The request path a URL path stands for, or undefined when it is refused (400). */
function requestPathOf(text: string): RequestPath | undefined {
  try {
    return parseRequestPath(new URL(text.startsWith('/') ? text : `/${text}`, 'http://x').pathname);
  } catch {
    return undefined;
  }
}

/** Whether the values expand the template back to the path, segment by segment, decoded. */
function expandsTo(template: string, values: TemplateValues, path: RequestPath): boolean {
  let segments: string[];
  try {
    segments = uriTemplate(template).fill(values).split('/').map((segment) => decodeURIComponent(segment).normalize('NFC'));
  } catch {
    return false;
  }
  const wanted = ['', ...path.segments, ...(path.directory ? [''] : [])];
  return segments.length === wanted.length && wanted.every((segment, index) => segments[index] === segment);
}

/** The matcher before this one: `uri-templates` reads values back, kept when they expand to the path again. */
function formerMatch(template: string, path: RequestPath): TemplateValues | undefined {
  try {
    const values = uriTemplate(template).fromUri(formattedPath(path));
    return values && expandsTo(template, values, path) ? values : undefined;
  } catch {
    return undefined;
  }
}

const cost = 300;
const agreement = 3000;

describe('templated rules on hostile paths', () => {
  it('match any configuration within the limits at most 5× one plain rule per templated rule, plus a step per part', { timeout: fuzzTimeout(cost, 50) }, () => {
    const rules = fc.array(fc.oneof(longTemplate, shortTemplate), { minLength: 1, maxLength: 12 });
    const path = fc.oneof(longPath, requestPath, shortPath);
    fc.assert(
      fc.property(rules, rules, path, (redirects, headers, raw) => {
        const request = requestPathOf(raw);
        fc.pre(request !== undefined);
        let configuration;
        try {
          configuration = checkHostConfiguration({
            redirects: redirects.map((from) => ({ from, to: '/y' })),
            headers: headers.map((uri) => ({ uri, fields: { 'X-A': 'a' } })),
          });
        } catch {
          fc.pre(false);
        }
        const host = hostOptionsOf(configuration!);
        const meter = { steps: 0 };
        host.redirects.first(request!, meter);
        host.headers.all(request!, meter);
        // One plain rule reads the path once: its decoded length, and a step.
        const plain = decodedPath(request!).length + 1;
        const bound = [...redirects, ...headers].reduce((steps, template) => steps + 5 * plain + new TemplateMatcher(template).parts, 0);
        expect(meter.steps, `${raw.slice(0, 40)}`).toBeLessThanOrEqual(bound);
      }),
      fuzzParameters(cost),
    );
  });

  it('read values that expand back to the path, and match wherever the former matcher did', { timeout: fuzzTimeout(agreement, 5) }, () => {
    const plain = new Set(plainCharacters.map((char) => decodeURIComponent(char)));
    fc.assert(
      fc.property(shortTemplate, templateValues(), shortPath, fc.boolean(), (template, values, random, expanded) => {
        let text = random;
        if (expanded) {
          try {
            text = uriTemplate(template).fill(values);
          } catch {
            fc.pre(false);
          }
        }
        const path = requestPathOf(text);
        fc.pre(path !== undefined);
        const matched = pathTemplate(template).match(path!);
        if (matched) expect(expandsTo(template, matched, path!), JSON.stringify({ template, text, matched })).toBe(true);
        // Where the former matcher's choices are the only ones (no variable named twice, no two
        // expressions side by side, values without separators), this one finds a match too.
        const names = [...template.matchAll(/[{,][+#./;?&]?([a-d])/g)].map((found) => found[1]);
        const unambiguous = new Set(names).size === names.length && !/\}\{[^#./;?&]/.test(template);
        const plainValues = [...path!.segments.join('/')].every((char) => plain.has(char) || char === '/');
        if (unambiguous && plainValues && formerMatch(template, path!)) expect(matched, JSON.stringify({ template, text })).toBeDefined();
      }),
      fuzzParameters(agreement, 1),
    );
  });
});
