import { describe, expect, it } from 'vitest';
import { checkFilePath, commonFolderPrefixLength, foldersOf } from '../../src/content/paths';
import { outcomeOf } from '../support/outcome';

/** The rules alone; test/api/deploy.test.ts shows them answering deploys. */
describe('checkFilePath', () => {
  it.each<[string, string, string]>([
    ['a file at the top', 'index.html', 'index.html'],
    ['a file in folders', 'dist/css/a.css', 'dist/css/a.css'],
    ['a dot file', '.well-known/security.txt', '.well-known/security.txt'],
    ['dots inside a name', 'a..b/...', 'a..b/...'],
    ['spaces and Unicode', 'my photos/été.jpg', 'my photos/été.jpg'],
    ['NFD becomes NFC', 'cafe\u0301.html', 'caf\u00e9.html'],
    ['the right-to-left mark right-to-left names need', 'a\u200F.txt', 'a\u200F.txt'],
    ['exactly 1024 bytes', 'a'.repeat(1024), 'a'.repeat(1024)],
    ['exactly 1024 bytes of two-byte characters', 'é'.repeat(512), 'é'.repeat(512)],
  ])('accepts %s', (_, name, expected) => {
    expect(checkFilePath(name)).toBe(expected);
  });

  it.each<[string, string]>([
    ['an empty name', ''],
    ['over 1024 bytes', 'a'.repeat(1025)],
    ['over 1024 bytes in UTF-8, under it in characters', 'é'.repeat(513)],
    ['a backslash', 'dist\\index.html'],
    ['a NUL', 'a\u0000b'],
    ['a line feed', 'a\nb'],
    ['a DEL', 'a\u007F'],
    ['a C1 control', 'a\u0085b'],
    ['a right-to-left override', 'photo\u202Egpj.exe'],
    ['a bidirectional isolate', '\u2066a'],
    ['an absolute path', '/etc/passwd'],
    ['an empty segment', 'a//b'],
    ['a trailing slash', 'a/'],
    ['a "." segment', './a'],
    ['a ".." segment', 'a/../../b'],
    ['".." alone', '..'],
  ])('refuses %s with 400', (_, name) => {
    expect(outcomeOf(() => checkFilePath(name))).toBe('400 invalid-path');
  });
});

describe('commonFolderPrefixLength', () => {
  it.each<[string, string[], number]>([
    ['no files', [], 0],
    ['a file at the top', ['index.html'], 0],
    ['one folder, as a browser uploads it', ['dist/index.html', 'dist/css/a.css'], 'dist/'.length],
    ['one file in one folder', ['dist/index.html'], 'dist/'.length],
    ['only the first folder is dropped', ['a/b/c.html', 'a/b/d.html'], 'a/'.length],
    ['two folders', ['dist/index.html', 'other/a.css'], 0],
    ['a file beside the folder', ['dist/index.html', 'robots.txt'], 0],
    ['a file named like the folder', ['dist/index.html', 'dist'], 0],
    ['a folder whose name starts like it', ['dist/index.html', 'distant/a.css'], 0],
  ])('%s: %j → %i', (_, paths, expected) => {
    expect(commonFolderPrefixLength(paths)).toBe(expected);
  });
});

describe('foldersOf', () => {
  it.each<[string, string[]]>([
    ['index.html', []],
    ['a/b.html', ['a']],
    ['a/b/c.html', ['a', 'a/b']],
  ])('%s → %j', (path, expected) => {
    expect(foldersOf(path)).toEqual(expected);
  });
});
