import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { CliError } from '../errors.ts';

/** The ignore file in the deployed folder's root, in .gitignore syntax. It is never uploaded itself. */
export const ignoreFileName = '.sitehostignore';

export interface LocalFile {
  /** Path relative to the deployed folder, `/`-separated: the file's path on the site. */
  path: string;
  absolutePath: string;
  size: number;
}

export interface CollectedFolder {
  files: LocalFile[];
  totalBytes: number;
}

/**
 * Lists the files to deploy from `root`, sorted by path: everything except `.git` (at any
 * depth), the ignore file, and what the ignore file matches. Only names and sizes are read
 * here; contents are read one file at a time while uploading. Symbolic links are followed.
 */
export async function collectFolder(root: string): Promise<CollectedFolder> {
  const rootStat = await stat(root).catch((error: NodeJS.ErrnoException) => {
    throw new CliError('usage', `Cannot deploy ${root}: ${error.code === 'ENOENT' ? 'no such folder' : error.message}.`);
  });
  if (!rootStat.isDirectory()) throw new CliError('usage', `Cannot deploy ${root}: it is not a folder.`);

  const rules = await readIgnoreRules(root);
  const files: LocalFile[] = [];

  /** `ancestors` holds the real paths of the folders above, to stop at a symbolic link loop. */
  async function walk(directory: string, prefix: string, ancestors: ReadonlySet<string>): Promise<void> {
    const real = await realpath(directory);
    if (ancestors.has(real)) return;
    const below = new Set(ancestors).add(real);
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const kept = entries.filter((entry) => entry.name !== '.git' && prefix + entry.name !== ignoreFileName && !rules.ignores(prefix + entry.name));
    // A folder's entries are looked at all at once: one at a time, 2,000 files took 100 ms.
    const found = await Promise.all(kept.map((entry) => inspect(entry, join(directory, entry.name))));
    for (const [index, entry] of kept.entries()) {
      const { kind, size } = found[index]!;
      const path = prefix + entry.name;
      const absolutePath = join(directory, entry.name);
      if (kind === 'directory' && !rules.ignores(`${path}/`)) await walk(absolutePath, `${path}/`, below);
      if (kind === 'file') files.push({ path, absolutePath, size });
    }
  }

  await walk(root, '', new Set()).catch((error: NodeJS.ErrnoException) => {
    throw error instanceof CliError ? error : new CliError('failure', `Cannot read ${error.path ?? root}: ${error.code ?? error.message}.`);
  });
  return { files, totalBytes: files.reduce((sum, file) => sum + file.size, 0) };
}

async function readIgnoreRules(root: string): Promise<Ignore> {
  const rules = ignore();
  try {
    rules.add(await readFile(join(root, ignoreFileName), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CliError('failure', `Cannot read ${join(root, ignoreFileName)}: ${(error as Error).message}`);
    }
  }
  return rules;
}

/** What an entry is, looking through symbolic links, and a file's size; sockets, FIFOs and devices are skipped. */
async function inspect(entry: Dirent, absolutePath: string): Promise<{ kind: 'file' | 'directory' | 'other'; size: number }> {
  if (entry.isDirectory()) return { kind: 'directory', size: 0 };
  if (!entry.isFile() && !entry.isSymbolicLink()) return { kind: 'other', size: 0 };
  const target = await stat(absolutePath).catch((error: unknown) => {
    if (!entry.isSymbolicLink()) throw error;
    throw new CliError('failure', `${absolutePath} is a broken symbolic link; remove it or list it in ${ignoreFileName}.`);
  });
  return { kind: target.isFile() ? 'file' : target.isDirectory() ? 'directory' : 'other', size: target.size };
}
