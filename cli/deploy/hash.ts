import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { CliError } from '../errors.ts';
import { hashFiles } from '../../src/common/incremental-deploy.ts';
import type { LocalFile } from './collect.ts';
import type { HashCache } from './hash-cache.ts';

export type HashedLocalFile = LocalFile & { hash: string };

/** Bytes read at a time: memory holds this much per file being hashed, whatever the file's size. */
const chunkBytes = 256 * 1024;

/**
 * SHA-256 of a file, read from disk into one reused buffer (WebCrypto would need the whole file
 * in memory; a read stream leaves a fresh buffer per chunk for the garbage collector, which
 * grew a 50 MB deploy's process by about 30 MB).
 */
async function hashFile(file: LocalFile): Promise<string> {
  const changed = () => new CliError('failure', `${file.absolutePath} changed while it was being read; try again.`);
  let handle;
  try {
    handle = await open(file.absolutePath, 'r');
  } catch (error) {
    throw new CliError('failure', `Cannot read ${file.absolutePath}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, file.size + 1));
    let position = 0;
    for (;;) {
      // Asks for one byte past the listed size, to notice a file that grew; a short read is the end.
      const wanted = Math.min(buffer.byteLength, file.size + 1 - position);
      const { bytesRead } = await handle.read(buffer, 0, wanted, position);
      position += bytesRead;
      if (position > file.size) throw changed();
      hash.update(buffer.subarray(0, bytesRead));
      if (bytesRead < wanted) break;
    }
    if (position !== file.size) throw changed();
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** Small files cost more in opening and reading than in hashing: several at once keep the disk busy. */
const filesAtOnce = 8;

/**
 * Every file's content hash: recorded in `cache` for a file unchanged since, else read, a few
 * files at a time so that reading and hashing overlap.
 */
export async function hashFolder(files: readonly LocalFile[], cache: HashCache): Promise<HashedLocalFile[]> {
  const recorded = files.map((file) => cache.hashOf(file));
  const read = await hashFiles(
    files.filter((_, index) => recorded[index] === undefined),
    hashFile,
    filesAtOnce,
  );
  let next = 0;
  return files.map((file, index) => ({ ...file, hash: recorded[index] ?? read[next++]!.hash }));
}
