import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { CliError } from '../errors.ts';
import { hashFiles } from '../../src/common/incremental-deploy.ts';
import type { LocalFile } from './collect.ts';
import type { HashCache } from './hash-cache.ts';
import { slicer } from './slices.ts';

export type HashedLocalFile = LocalFile & { hash: string };

/** Bytes read at a time: memory holds this much per file being hashed, whatever the file's size. */
const chunkBytes = 256 * 1024;

/**
 * Files up to this size are read whole, synchronously (./slices.ts): opening, reading and closing
 * through promises costs a small file far more than hashing it (2,000 files of 1 KB: 105 ms
 * against about 25).
 */
export const smallFileBytes = 64 * 1024;

function cannotRead(file: LocalFile, error: unknown): CliError {
  return new CliError('failure', `Cannot read ${file.absolutePath}: ${(error as Error).message}`, { cause: error });
}

function changedWhileRead(file: LocalFile): CliError {
  return new CliError('failure', `${file.absolutePath} changed while it was being read; try again.`);
}

/**
 * Reads a small file whole into `buffer` at `offset` (it must have room for one byte more than
 * the file's listed size, to notice a file that grew) and returns the bytes read; throws when the
 * file is no longer the size it was listed with.
 */
export function readSmallFile(file: LocalFile, buffer: Uint8Array, offset: number): Uint8Array {
  let descriptor: number;
  try {
    descriptor = openSync(file.absolutePath, 'r');
  } catch (error) {
    throw cannotRead(file, error);
  }
  try {
    let position = 0;
    for (;;) {
      const bytesRead = readSync(descriptor, buffer, offset + position, file.size + 1 - position, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      if (position > file.size) throw changedWhileRead(file);
    }
    if (position !== file.size) throw changedWhileRead(file);
    return buffer.subarray(offset, offset + file.size);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * SHA-256 of a larger file, read from disk into one reused buffer (WebCrypto would need the whole
 * file in memory; a read stream leaves a fresh buffer per chunk for the garbage collector, which
 * grew a 50 MB deploy's process by about 30 MB).
 */
async function hashLargeFile(file: LocalFile): Promise<string> {
  let handle;
  try {
    handle = await open(file.absolutePath, 'r');
  } catch (error) {
    throw cannotRead(file, error);
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
      if (position > file.size) throw changedWhileRead(file);
      hash.update(buffer.subarray(0, bytesRead));
      if (bytesRead < wanted) break;
    }
    if (position !== file.size) throw changedWhileRead(file);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** Larger files cost more in opening and reading than in hashing: several at once keep the disk busy. */
const filesAtOnce = 8;

/**
 * Every file's content hash: recorded in `cache` for a file unchanged since, else read. Small
 * files are read one after another in slices of synchronous reads; larger ones a few at a time,
 * so that reading and hashing overlap.
 */
export async function hashFolder(files: readonly LocalFile[], cache: HashCache): Promise<HashedLocalFile[]> {
  /** By absolute path: each listed file has its own. */
  const hashes = new Map<string, string>();
  const unknown = files.filter((file) => {
    const recorded = cache.hashOf(file);
    if (recorded !== undefined) hashes.set(file.absolutePath, recorded);
    return recorded === undefined;
  });
  const buffer = Buffer.allocUnsafe(smallFileBytes + 1);
  const turn = slicer();
  for (const file of unknown) {
    if (file.size > smallFileBytes) continue;
    await turn();
    hashes.set(file.absolutePath, createHash('sha256').update(readSmallFile(file, buffer, 0)).digest('hex'));
  }
  const large = unknown.filter((file) => file.size > smallFileBytes);
  for (const file of await hashFiles(large, hashLargeFile, filesAtOnce)) hashes.set(file.absolutePath, file.hash);
  return files.map((file) => ({ ...file, hash: hashes.get(file.absolutePath)! }));
}
