import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectFolder } from '../../../cli/deploy/collect.ts';

let root: string;

async function writeTree(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

const listed = async () => (await collectFolder(root)).files.map((file) => file.path);

describe('listing the folder to deploy', () => {
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sitehost-collect-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('lists every file by its path on the site, sorted, without .git, the ignore file, or what it ignores', async () => {
    await writeTree({ 'index.html': 'i', 'b/z.css': 'z', 'a/y.js': 'y', '.git/HEAD': 'ref', 'drafts/x.html': 'x', 'notes.md': 'n', '.sitehostignore': 'drafts/\n*.md\n' });
    expect(await listed()).toEqual(['a/y.js', 'b/z.css', 'index.html']);
    expect((await collectFolder(root)).totalBytes).toBe(3);
  });

  it('follows symbolic links to folders and files, and stops at a link back to a folder above', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'sitehost-collect-target-'));
    try {
      await writeFile(join(elsewhere, 'shared.css'), 'css');
      await writeTree({ 'index.html': 'i', 'docs/page.html': 'p' });
      await symlink(elsewhere, join(root, 'assets'));
      await symlink(join(root, 'index.html'), join(root, 'home.html'));
      // A loop: docs/again is docs itself.
      await symlink(join(root, 'docs'), join(root, 'docs', 'again'));
      expect(await listed()).toEqual(['assets/shared.css', 'docs/page.html', 'home.html', 'index.html']);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('lets the event loop turn while it lists a large folder, even a flat one, so that a request opened before goes out meanwhile', async () => {
    await writeTree(Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`page-${index}.html`, 'p'])));
    const happened: string[] = [];
    setImmediate(() => happened.push('event loop turned'));
    const { files } = await collectFolder(root);
    happened.push('listed');
    expect(files).toHaveLength(2000);
    expect(happened).toEqual(['event loop turned', 'listed']);
  });
});
