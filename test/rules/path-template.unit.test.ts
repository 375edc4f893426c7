import { describe, expect, it } from 'vitest';
import { pathTemplate } from '../../src/rules/path-template';
import { parseRequestPath } from '../../src/http/request-path';

const match = (template: string, path: string) => pathTemplate(template).match(parseRequestPath(path));

describe('a URI template matched against request paths', () => {
  it.each([
    ['/blog/{slug}', '/blog/hello-world', { slug: 'hello-world' }],
    ['/blog/{slug}', '/blog/a%20b', { slug: 'a b' }],
    ['/{year}/{month}/{slug}', '/2024/05/news', { year: '2024', month: '05', slug: 'news' }],
    ['/docs{/rest*}', '/docs/a/b', { rest: ['a', 'b'] }],
    ['/docs{/rest*}', '/docs', {}],
    ['/docs{/rest*}', '/docs/', { rest: [''] }],
    ['/go/{+to}', '/go/elsewhere/page', { to: 'elsewhere/page' }],
    ['/{+path}', '/caf%C3%A9/menu', { path: 'café/menu' }],
    ['/{+dir}/{file}.html', '/a/b/c.html', { dir: 'a/b', file: 'c' }],
    ['/{+path}.html', '/x/y.html', { path: 'x/y' }],
    ['/{name}.html', '/x.y.html', { name: 'x.y' }],
    ['/{a}-{b}', '/x-y-z', { a: 'x', b: 'y-z' }],
    ['/{name}{.ext}', '/a.b.c', { name: 'a', ext: 'b.c' }],
    ['/f{.ext*}', '/f.tar.gz', { ext: ['tar', 'gz'] }],
    ['{/a}{/b}', '/x/y', { a: 'x', b: 'y' }],
    ['{/y,m,d}', '/2024/05/06', { y: '2024', m: '05', d: '06' }],
    ['/x{;page}', '/x;page=2', { page: '2' }],
    ['/{a:3}', '/abc', { a: 'abc' }],
    ['/{tags}', '/x,y', { tags: ['x', 'y'] }],
    ['/{a}/{a}', '/x/x', { a: 'x' }],
    ['/{+a}\u{1F600}{b}', '/x/y%F0%9F%98%80z', { a: 'x/y', b: 'z' }],
  ])('%s reads %s', (template, path, values) => {
    expect(match(template, path)).toEqual(values);
  });

  it.each([
    ['/blog/{slug}', '/blog/a/b', 'a simple variable never takes a `/`'],
    ['/blog/{slug}', '/blog', 'the literal must be there'],
    ['/docs{/rest*}', '/docsx', 'an optional prefix, absent, leaves nothing to read'],
    ['/{a:3}', '/abcd', 'a prefix modifier bounds the value'],
    ['/{a}/{a}', '/x/y', 'a variable named twice reads one value'],
    ['/a%2Fb/{x}', '/a%2Fb/c', 'no decoded segment holds an encoded `/`'],
    ['/%zz/{x}', '/%25zz/c', 'a literal that does not decode'],
  ])('%s does not match %s: %s', (template, path) => {
    expect(match(template, path)).toBeUndefined();
  });

  it('expands what it read back to the path', () => {
    for (const [template, path] of [
      ['/{+dir}/{file}.html', '/a/b/c.html'],
      ['/blog/{slug}', '/blog/a%20b'],
      ['/{+path}', '/caf%C3%A9/menu'],
      ['{/a}{/b}', '/x/y'],
    ] as const) {
      const compiled = pathTemplate(template);
      expect(compiled.expand(compiled.match(parseRequestPath(path))!)).toBe(path);
    }
  });

  it('gives values without a prototype, whatever the names', () => {
    const values = match('/{__proto__}/{constructor}', '/x/y');
    expect(Object.getPrototypeOf(values)).toBeNull();
    expect(Object.entries(values!)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });

  it('reads the issue’s 409 explode expressions of one variable without expanding them again', () => {
    const meter = { steps: 0 };
    const path = `/${'b/'.repeat(2047)}c`;
    expect(pathTemplate('{/a*}'.repeat(409)).match(parseRequestPath(path), meter)).toBeUndefined();
    expect(meter.steps).toBeLessThan(5 * path.length);
  });
});
