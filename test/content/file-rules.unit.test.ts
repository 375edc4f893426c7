import { describe, expect, it } from 'vitest';
import type { DeployLimits } from '../../src/content/deploy-limits';
import { checkFileSize, checkFilesAndFolders, checkSiteSize } from '../../src/content/file-rules';
import { outcomeOf } from '../support/outcome';

const limits: DeployLimits = { maxFiles: 3, maxTotalBytes: 100, maxFileBytes: 10 };

/** The rules alone; test/api/deploy.test.ts and test/deploy/multipart-reader.test.ts show them answering deploys. */
describe('checkFilesAndFolders', () => {
  it.each<[string, string[], string]>([
    ['no files', [], 'ok'],
    ['files and folders apart', ['a.html', 'a/b.html', 'ab', 'a-b/c'], 'ok'],
    ['a file beside a folder of the same name', ['a', 'a/b.html'], '400 invalid-path'],
    ['a file named like a deeper folder', ['x/y/z.html', 'x/y'], '400 invalid-path'],
    ['names that only share a prefix', ['ab', 'a/b'], 'ok'],
  ])('%s: %j → %s', (_, paths, expected) => {
    expect(outcomeOf(() => checkFilesAndFolders(new Set(paths)))).toBe(expected);
  });

  it('names the path that is both', () => {
    expect(() => checkFilesAndFolders(new Set(['docs/a/b.html', 'docs/a']))).toThrow('"docs/a" cannot be both a file and a folder.');
  });
});

describe('checkFileSize', () => {
  it.each<[number, string]>([
    [0, 'ok'],
    [10, 'ok'],
    [11, '413 payload-too-large MAX_FILE_BYTES=10'],
  ])('a file of %i bytes → %s', (size, expected) => {
    expect(outcomeOf(() => checkFileSize(limits, size))).toBe(expected);
  });
});

describe('checkSiteSize', () => {
  it.each<[number, number, string]>([
    [0, 0, 'ok'],
    [3, 100, 'ok'],
    [4, 0, '413 payload-too-large MAX_FILES=3'],
    [3, 101, '413 payload-too-large MAX_TOTAL_BYTES=100'],
    [4, 101, '413 payload-too-large MAX_FILES=3'],
  ])('%i files of %i bytes in all → %s', (fileCount, totalBytes, expected) => {
    expect(outcomeOf(() => checkSiteSize(limits, fileCount, totalBytes))).toBe(expected);
  });
});
