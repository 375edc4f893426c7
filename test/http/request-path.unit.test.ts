import { describe, expect, it } from 'vitest';
import { formatPath, joinSitePath, maxPathLength, normaliseSitePath, parseRequestPath } from '../../src/http/request-path';
import { outcomeOf } from '../support/outcome';

/** The rules alone; test/serving/paths.test.ts shows the same paths through HTTP, against a deployed site. */
describe('parseRequestPath', () => {
  it.each<[string, string, string[], boolean, boolean]>([
    ['the root', '/', [], true, true],
    ['a file', '/a/b.html', ['a', 'b.html'], false, true],
    ['a folder (trailing slash)', '/a/b/', ['a', 'b'], true, true],
    ['doubled slashes', '//a//b', ['a', 'b'], false, false],
    ['a "." segment', '/a/./b', ['a', 'b'], false, false],
    ['a ".." segment', '/a/../b', ['b'], false, false],
    ['".." above the root, clamped', '/../../etc/passwd', ['etc', 'passwd'], false, false],
    ['encoded ".." (%2e%2e), clamped', '/%2e%2e/%2E%2E/x', ['x'], false, false],
    ['an encoded slash (%2f) is a separator', '/a%2fb', ['a', 'b'], false, true],
    ['an encoded backslash (%5c) is a separator', '/a%5cb', ['a', 'b'], false, false],
    ['a final ".." names a folder', '/a/b/..', ['a'], true, false],
    ['a final "." names a folder', '/a/.', ['a'], true, false],
    ['decoded once: %252e stays %2e', '/%252e%252e/x', ['%2e%2e', 'x'], false, true],
    ['an encoded space', '/a%20b', ['a b'], false, true],
    ['NFC, whatever the request sends', '/cafe%CC%81.html', ['caf\u00e9.html'], false, true],
    ['NFC already', '/caf%C3%A9.html', ['caf\u00e9.html'], false, true],
    [`exactly ${maxPathLength} characters`, `/${'a'.repeat(maxPathLength - 1)}`, ['a'.repeat(maxPathLength - 1)], false, true],
  ])('%s: %s', (_, pathname, segments, directory, normal) => {
    expect(parseRequestPath(pathname)).toEqual({ segments, directory, normal });
  });

  it.each<[string, string, string]>([
    ['a NUL', '/index.html%00.txt', '400 invalid-path'],
    ['a line feed', '/a%0ab', '400 invalid-path'],
    ['a DEL', '/a%7f', '400 invalid-path'],
    ['malformed percent-encoding', '/%zz', '400 invalid-path'],
    ['a lone percent sign', '/100%', '400 invalid-path'],
    ['invalid UTF-8', '/%c3%28', '400 invalid-path'],
    [`over ${maxPathLength} characters: 414 URI Too Long (RFC 9110 §15.5.15)`, `/${'a'.repeat(maxPathLength)}`, `414 uri-too-long MAX_PATH_LENGTH=${maxPathLength}`],
  ])('refuses %s', (_, pathname, outcome) => {
    expect(outcomeOf(() => parseRequestPath(pathname))).toBe(outcome);
  });
});

describe('formatPath', () => {
  it.each<[string[], boolean, string]>([
    [[], true, '/'],
    [[], false, '/'],
    [['a', 'b'], false, '/a/b'],
    [['a', 'b'], true, '/a/b/'],
    [['a b', 'caf\u00e9'], false, '/a%20b/caf%C3%A9'],
    [['what?', '#top'], false, '/what%3F/%23top'],
    [['a;b=c', '~user'], false, '/a;b=c/~user'],
  ])('%j (folder: %s) → %s', (segments, directory, expected) => {
    expect(formatPath(segments, directory)).toBe(expected);
  });
});

describe('site paths from host options', () => {
  it.each<[string, string]>([
    ['', ''],
    ['/', ''],
    ['/dist/', 'dist'],
    ['dist', 'dist'],
    ['./404.html', '404.html'],
    ['../../outside/x.html', 'outside/x.html'],
    ['a\\b', 'a/b'],
    ['a//b/', 'a/b'],
  ])('normaliseSitePath(%j) → %j', (value, expected) => {
    expect(normaliseSitePath(value)).toBe(expected);
  });

  it.each<[string, string, string]>([
    ['', '', ''],
    ['', 'a.html', 'a.html'],
    ['dist', '', 'dist'],
    ['dist', 'a/b.html', 'dist/a/b.html'],
  ])('joinSitePath(%j, %j) → %j', (folder, path, expected) => {
    expect(joinSitePath(folder, path)).toBe(expected);
  });
});
