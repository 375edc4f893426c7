import { type Dirent, type BigIntStats, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { CliError } from '../errors.ts';
import { slicer } from './slices.ts';

/** The ignore file in the deployed folder's root, in .gitignore syntax. It is never uploaded itself. */
export const ignoreFileName = '.sitehostignore';

/** What says a file is unchanged since it was last hashed (see ./hash-cache.ts). */
export interface FileIdentity {
  size: number;
  /** Nanoseconds since the epoch. */
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
}

export interface LocalFile {
  /** Path relative to the deployed folder, `/`-separated: the file's path on the site. */
  path: string;
  absolutePath: string;
  size: number;
  identity: FileIdentity;
}

export interface CollectedFolder {
  files: LocalFile[];
  totalBytes: number;
}

/**
 * Lists the files to deploy from `root`, sorted by path: everything except `.git` (at any
 * depth), the ignore file, and what the ignore file matches. Only names and stats are read
 * here; contents are read one file at a time while hashing and uploading. Symbolic links are
 * followed. Folders are read and files stated synchronously (2,000 stats take 10 ms this way
 * against 50 ms through promises), in slices between which the event loop turns (./slices.ts):
 * a deploy's request, opened before the listing, connects and sends its headers meanwhile.
 */
export async function collectFolder(root: string): Promise<CollectedFolder> {
  const rootStat = tryStat(root, (error) => {
    throw new CliError('usage', `Cannot deploy ${root}: ${error.code === 'ENOENT' ? 'no such folder' : error.message}.`);
  });
  if (!rootStat.isDirectory()) throw new CliError('usage', `Cannot deploy ${root}: it is not a folder.`);

  const rules = readIgnoreRules(root);
  const ignored = (path: string) => rules?.ignores(path) ?? false;
  const files: LocalFile[] = [];
  const turn = slicer();

  /**
   * `real` is the folder's real path, `ancestors` those of the folders above, to stop at a
   * symbolic link loop. A folder reached by no symbolic link is its parent's real path and its
   * name: resolving every folder's path took 2 ms of a 2,000-file listing.
   */
  async function walk(directory: string, prefix: string, real: string, ancestors: ReadonlySet<string>): Promise<void> {
    if (ancestors.has(real)) return;
    const below = new Set(ancestors).add(real);
    const entries = readdirSync(directory, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      await turn();
      const path = prefix + entry.name;
      if (entry.name === '.git' || path === ignoreFileName || ignored(path)) continue;
      // Not path.join: names from readdir hold no separator, and normalising 2,000 paths took 2 ms.
      const absolutePath = `${directory}${sep}${entry.name}`;
      const found = inspect(entry, absolutePath);
      if (found === 'directory' && !ignored(`${path}/`)) {
        await walk(absolutePath, `${path}/`, entry.isSymbolicLink() ? realpathSync(absolutePath) : `${real}${sep}${entry.name}`, below);
      }
      if (found !== 'directory' && found !== 'other') files.push({ path, absolutePath, size: found.size, identity: found });
    }
  }

  try {
    await walk(root, '', realpathSync(root), new Set());
  } catch (error) {
    if (error instanceof CliError) throw error;
    const failure = error as NodeJS.ErrnoException;
    throw new CliError('failure', `Cannot read ${failure.path ?? root}: ${failure.code ?? failure.message}.`);
  }
  return { files, totalBytes: files.reduce((sum, file) => sum + file.size, 0) };
}

/** The ignore file's rules; none without the file, which spares 2,000 paths the matcher (2 ms). */
function readIgnoreRules(root: string): Ignore | undefined {
  try {
    return ignore().add(readFileSync(join(root, ignoreFileName), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CliError('failure', `Cannot read ${join(root, ignoreFileName)}: ${(error as Error).message}`);
    }
    return undefined;
  }
}

function tryStat(path: string, onError: (error: NodeJS.ErrnoException) => never): BigIntStats {
  try {
    return statSync(path, { bigint: true });
  } catch (error) {
    return onError(error as NodeJS.ErrnoException);
  }
}

/** What an entry is, looking through symbolic links, and a file's identity; sockets, FIFOs and devices are skipped. */
function inspect(entry: Dirent, absolutePath: string): FileIdentity | 'directory' | 'other' {
  if (entry.isDirectory()) return 'directory';
  if (!entry.isFile() && !entry.isSymbolicLink()) return 'other';
  const target = tryStat(absolutePath, (error) => {
    if (!entry.isSymbolicLink()) throw error;
    throw new CliError('failure', `${absolutePath} is a broken symbolic link; remove it or list it in ${ignoreFileName}.`);
  });
  if (target.isDirectory()) return 'directory';
  if (!target.isFile()) return 'other';
  return { size: Number(target.size), mtimeNs: target.mtimeNs, ctimeNs: target.ctimeNs, ino: target.ino };
}
