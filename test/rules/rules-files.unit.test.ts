import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/rules/headers-file';
import { parseRedirectsFile } from '../../src/rules/redirects-file';
import { rulesFileLimits } from '../../src/rules/rules-files';
import { Problem } from '../../src/http/problem';

/** The problem a file is refused with, as `<file> line <n>[ <limit>]`, or 'ok'. */
function refusal(read: () => unknown): string {
  try {
    read();
    return 'ok';
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const { file, line, limit } = error.options.extensions as { file: string; line: number; limit?: string };
    expect(error.status).toBe(400);
    expect(error.detail).toContain(`${file} line ${line}:`);
    return `${file} line ${line}${limit ? ` ${limit}` : ''}`;
  }
}

describe('_redirects', () => {
  it.each<[string, string, object]>([
    ['a plain redirect, 301 by default as on Netlify', '/home /', { from: '/home', to: '/', status: 301, force: false }],
    ['a status and force', '/a /b 302!', { from: '/a', to: '/b', status: 302, force: true }],
    ['placeholders', '/blog/:year/:slug /posts/:year/:slug 308', { from: '/blog/{year}/{slug}', to: '/posts/{+year}/{+slug}', status: 308 }],
    ['a splat', '/news/* /blog/:splat', { from: '/news/{+splat}', to: '/blog/{+splat}' }],
    ['a rewrite', '/* /index.html 200', { from: '/{+splat}', to: '/index.html', status: 200 }],
    ['a forward rule', '/app/* 200', { from: '/app/{+splat}', to: '/app/{+splat}', status: 200 }],
    ['a 404 page', '/shop/* /closed.html 404', { status: 404, to: '/closed.html' }],
    ['query parameters', '/store id=:id /items/:id 301', { from: '/store', to: '/items/{+id}', query: [{ name: 'id', variable: 'id' }] }],
    ['a query value', '/list sort=new /new 302', { query: [{ name: 'sort', equals: 'new' }] }],
    ['conditions', '/ /fr 302 Country=fr,be Language=fr', { countries: ['FR', 'BE'], languages: ['fr'] }],
    ['an absolute from', 'https://www.example.com/* https://example.com/:splat 301!', { origin: { protocol: 'https:', host: 'www.example.com' }, from: '/{+splat}', to: 'https://example.com/{+splat}' }],
    ['an inline comment', '/a /b 302 # why', { from: '/a', to: '/b', status: 302 }],
    ['a URL keeps its colons', '/docs https://docs.example.com:8443/x 302', { to: 'https://docs.example.com:8443/x' }],
    ["a segment read as Netlify reads it, one placeholder named by the rest (Astro's `:lang:`)", '/:lang:/old/ /:lang:/new/', { from: '/{lang%3A}/old/', to: '/{+lang%3A}/new/' }],
    ['a ":" that starts no segment as text, as Netlify reads it', '/g/x:na:me/file.:ext /h/:na 302', { from: '/g/x:na:me/file.:ext', to: '/h/:na' }],
    ['a name written again as a placeholder of its own, the first filling the target', '/:a-:b/:a-:b id=:a-:b /h/:a-:b', { from: '/{a%2D%3Ab}/{a%2D%3Ab.2}', to: '/h/{+a%2D%3Ab}', query: [{ name: 'id', variable: 'a%2D%3Ab.3' }] }],
  ])('reads %s', (_, line, expected) => {
    expect(parseRedirectsFile(`# a comment\n\n${line}\n`)).toEqual([expect.objectContaining(expected)]);
  });

  it.each<[string, string]>([
    ['a proxy to another origin', '/api/* https://api.example.com/:splat 200'],
    ['no target', '/lonely'],
    ['a status no host has', '/a /b 299'],
    ['a condition that is not supported', '/a /b 302 Role=admin'],
    ['a target that leaves the site', '/a //evil.example/ 302'],
    ['two "*"', '/*/x/* /y 302'],
    ['a path that is no path', 'home / 301'],
    ['a query in the path', '/a?x=1 /b 302'],
    ['a placeholder in the host', 'https://:sub.example.com/* /x 301'],
    ['a host that is no domain', 'https://example.com:8443/old /new 301'],
    [':splat in a target whose path has no "*"', '/a /b/:splat 302'],
    ['a "%" that starts no escape in the path', '/c%zz /d 302'],
    ['a "%" that starts no escape in the target', '/e /f%2 302'],
    ['an escape that is not UTF-8', '/g%C3%28 /h 302'],
  ])('refuses %s with a 400 naming the line', (_, line) => {
    expect(refusal(() => parseRedirectsFile(`/ok /fine\n# comment\n${line}`))).toBe('_redirects line 3');
  });

  it('refuses a line over 1,000 characters, and the rule past each count limit, naming the limit', () => {
    expect(refusal(() => parseRedirectsFile(`/a /${'b'.repeat(1_000)}`))).toBe('_redirects line 1 MAX_RULES_LINE_LENGTH');
    const statics = Array.from({ length: rulesFileLimits.MAX_STATIC_REDIRECTS + 1 }, (_, i) => `/s${i} /t`).join('\n');
    expect(refusal(() => parseRedirectsFile(statics))).toBe(`_redirects line ${rulesFileLimits.MAX_STATIC_REDIRECTS + 1} MAX_STATIC_REDIRECTS`);
    const dynamics = Array.from({ length: rulesFileLimits.MAX_DYNAMIC_REDIRECTS + 1 }, (_, i) => `/d${i}/* /t/:splat`).join('\n');
    expect(refusal(() => parseRedirectsFile(dynamics))).toBe(`_redirects line ${rulesFileLimits.MAX_DYNAMIC_REDIRECTS + 1} MAX_DYNAMIC_REDIRECTS`);
    expect(refusal(() => parseRedirectsFile(statics.split('\n').slice(1).join('\n')))).toBe('ok');
  });
});

describe('every bad line at once', () => {
  it('lists each bad line in errors, the first in the detail, and reads the lines between', () => {
    let problem: Problem | undefined;
    try {
      parseRedirectsFile('/a /b/:splat 302\n/ok /fine 302\n/c%zz /d 302');
    } catch (error) {
      problem = error as Problem;
    }
    expect(problem?.detail).toMatch(/^_redirects line 1: .* \(and 1 more line\)$/);
    expect(problem?.options.errors).toEqual([
      { file: '_redirects', line: 1, message: expect.stringContaining(':splat') },
      { file: '_redirects', line: 3, message: expect.stringContaining('%') },
    ]);
  });
});

describe('_headers', () => {
  it('reads paths, fields, repeated fields and detaches', () => {
    const file = ['# security', '/*', '  X-Frame-Options: DENY', '  ! X-Robots-Tag', '/movies/:title', '  X-Movie: watching :title', '  Link: </a.css>; rel=preload', '  Link: </b.js>; rel=preload'].join('\n');
    expect(parseHeadersFile(file)).toEqual([
      { uri: '/{+splat}', fields: { 'X-Frame-Options': ['DENY'] }, detach: ['X-Robots-Tag'] },
      { uri: '/movies/{title}', fields: { 'X-Movie': ['watching {+title}'], Link: ['</a.css>; rel=preload', '</b.js>; rel=preload'] }, detach: [] },
    ]);
  });

  it.each<[string, string]>([
    ['a field before any path', 'X-A: b'],
    ['a field without a value', '/a\n  X-A:'],
    ['a name that is no token', '/a\n  X A: b'],
    ['a framing field', '/a\n  Content-Length: 1'],
    ['a Basic-Auth pair without a password', '/a\n  Basic-Auth: user'],
    ['a Basic-Auth pair without a user name', '/a\n  Basic-Auth: :secret'],
    ['a line that is neither', '/a\n  just words'],
    ['a rule for another host', '/a\n  X-A: b\nhttps://example.com/*'],
    ['a character outside ASCII in a value', '/a\n  X-A: caf\u00e9'],
    ['a query in a path', '/a?x=1'],
    ['a fragment in a path', '/a#top'],
    ['a malformed escape in a path', '/a%G1'],
  ])('refuses %s with a 400 naming the line', (_, text) => {
    const lines = text.split('\n').length;
    expect(refusal(() => parseHeadersFile(text))).toBe(`_headers line ${lines}`);
  });

  it("reads Netlify's Basic-Auth apart from the fields, and never quotes it in a refusal", () => {
    const file = ['/private/*', '  X-A: b', '  Basic-Auth: ann:first-secret bob:second:with-colon', '  basic-auth: cy:third'].join('\n');
    expect(parseHeadersFile(file)).toEqual([
      {
        uri: '/private/{+splat}',
        fields: { 'X-A': ['b'] },
        detach: [],
        basicAuth: [
          { user: 'ann', password: 'first-secret' },
          { user: 'bob', password: 'second:with-colon' },
          { user: 'cy', password: 'third' },
        ],
      },
    ]);
    try {
      parseHeadersFile('/a\n  Basic-Auth: leaked-secret-but-no-colon');
      expect.unreachable();
    } catch (error) {
      expect((error as Problem).detail).not.toContain('leaked-secret');
    }
    const many = Array.from({ length: rulesFileLimits.MAX_BASIC_AUTH_CREDENTIALS + 1 }, (_, i) => `u${i}:p${i}`).join(' ');
    expect(refusal(() => parseHeadersFile(`/a\n  Basic-Auth: ${many}`))).toBe('_headers line 2 MAX_BASIC_AUTH_CREDENTIALS');
  });

  it('refuses the rule past 100, and header values that could pass 32 KiB on one response', () => {
    const many = Array.from({ length: rulesFileLimits.MAX_HEADERS_FILE_RULES + 1 }, (_, i) => `/p${i}\n  X-A: b`).join('\n');
    expect(refusal(() => parseHeadersFile(many))).toBe(`_headers line ${2 * rulesFileLimits.MAX_HEADERS_FILE_RULES + 1} MAX_HEADERS_FILE_RULES`);
    const big = Array.from({ length: 40 }, (_, i) => `/*\n  X-${i}: ${'v'.repeat(900)}`).join('\n');
    expect(refusal(() => parseHeadersFile(big))).toMatch(/^_headers line \d+$/);
  });
});
