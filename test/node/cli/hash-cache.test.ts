import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectFolder, type LocalFile } from '../../../cli/deploy/collect.ts';
import { HashCache } from '../../../cli/deploy/hash-cache.ts';

/**
 * The CLI's record of the hashes of a deployed folder: a file is read again whenever it may have
 * changed, however its times were set, and never trusted when it changed as it was listed.
 */
let work: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-hash-cache-'));
  env = { XDG_CACHE_HOME: join(work, 'cache') };
});
afterEach(() => rm(work, { recursive: true, force: true }));

const second = 1_000_000_000n;

async function folderWith(content: string): Promise<{ root: string; file: LocalFile }> {
  const root = join(work, 'site');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'index.html'), content);
  return { root, file: collectFolder(root).files[0]! };
}

/** Records `file` with `hash`, as a deploy listing it at `listedAtNs` does, and opens the record again. */
async function recorded(root: string, file: LocalFile, hash: string, listedAtNs: bigint): Promise<HashCache> {
  const cache = await HashCache.open(root, true, env);
  cache.hashOf(file);
  await cache.save([{ ...file, hash }], listedAtNs, { target: 'https://api.example example.com', hashes: [hash] });
  return HashCache.open(root, true, env);
}

describe('the hash cache', () => {
  it('answers the recorded hash of a file unchanged since a listing well after its last change', async () => {
    const { root, file } = await folderWith('v1');
    const cache = await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + second);
    expect(cache.hashOf(collectFolder(root).files[0]!)).toBe('a'.repeat(64));
    expect(cache.deployedTo('https://api.example example.com')).toEqual(new Set(['a'.repeat(64)]));
    expect(cache.deployedTo('https://api.example other.example')).toBeUndefined();
  });

  it('reads a file again when its content changed, even with its size and modification time put back', async () => {
    const { root, file } = await folderWith('v1');
    const cache = await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + second);
    await writeFile(join(root, 'index.html'), 'v2');
    const mtime = new Date(Number(file.identity.mtimeNs / 1_000_000n));
    await utimes(join(root, 'index.html'), mtime, mtime);
    const changed = collectFolder(root).files[0]!;
    expect(changed.identity.size).toBe(file.identity.size);
    expect(cache.hashOf(changed)).toBeUndefined();
  });

  it('does not trust a file that changed within the listing that recorded it', async () => {
    const { root, file } = await folderWith('v1');
    // Listed 10 ms after its change: a second change in the same clock tick would look the same.
    const racy = await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + 10_000_000n);
    expect(racy.hashOf(file)).toBeUndefined();
  });

  it('allows file systems that keep whole seconds two seconds of doubt', async () => {
    const { root, file } = await folderWith('v1');
    const coarse = { ...file, identity: { ...file.identity, mtimeNs: 1_700_000_000n * second, ctimeNs: 1_700_000_000n * second } };
    const justAfter = await recorded(root, coarse, 'a'.repeat(64), coarse.identity.ctimeNs + second);
    expect(justAfter.hashOf(coarse)).toBeUndefined();
    const later = await recorded(root, coarse, 'a'.repeat(64), coarse.identity.ctimeNs + 3n * second);
    expect(later.hashOf(coarse)).toBe('a'.repeat(64));
  });

  it('reads and keeps nothing when disabled, and ignores a record it cannot read', async () => {
    const { root, file } = await folderWith('v1');
    await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + second);
    expect((await HashCache.open(root, false, env)).hashOf(file)).toBeUndefined();
    const folder = join(work, 'cache', 'sitehost', 'folders');
    for (const name of await readdir(folder)) await writeFile(join(folder, name), '{not json');
    expect((await HashCache.open(root, true, env)).hashOf(file)).toBeUndefined();
  });
});
