import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectFolder, type LocalFile } from '../../../cli/deploy/collect.ts';
import { HashCache, patchBetween } from '../../../cli/deploy/hash-cache.ts';

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
  return { root, file: (await collectFolder(root)).files[0]! };
}

const target = 'https://api.example example.com';
const other = 'https://api.example other.example';
const hex = (character: string) => character.repeat(64);

/** Waits until the files changed so far are older than the racy margin: a listing from then on trusts their records. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** A folder of these files. */
async function writeTree(files: Record<string, string>): Promise<string> {
  const root = join(work, 'tree');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await settle();
  return root;
}

/** Records `file` with `hash`, as a deploy listing it at `listedAtNs` does, and opens the record again. */
async function recorded(root: string, file: LocalFile, hash: string, listedAtNs: bigint): Promise<HashCache> {
  const cache = await HashCache.open(root, true, env);
  cache.hashOf(file);
  await cache.save([{ ...file, hash }], listedAtNs, target);
  await cache.deployed(target, 'd1');
  return HashCache.open(root, true, env);
}

/**
 * A deploy from `root` to `to` as the CLI runs it: the folder listed and looked up, `hashes` (by
 * path, for every file listed) saved, and, unless it failed, its deployment recorded.
 */
async function deployFrom(root: string, to: string, hashes: Record<string, string>, deploymentId: string | undefined): Promise<void> {
  const cache = await HashCache.open(root, true, env);
  const files = (await collectFolder(root)).files;
  for (const file of files) cache.hashOf(file);
  await cache.save(
    files.map((file) => ({ ...file, hash: hashes[file.path]! })),
    BigInt(Date.now()) * 1_000_000n,
    to,
  );
  if (deploymentId !== undefined) await cache.deployed(to, deploymentId);
}

async function deployedTo(root: string, to: string): Promise<{ deploymentId: string; files: Record<string, string> } | undefined> {
  const record = (await HashCache.open(root, true, env)).deployedTo(to);
  return record && { deploymentId: record.deploymentId, files: Object.fromEntries(record.files) };
}

describe('the hash cache', () => {
  it('answers the recorded hash of a file unchanged since a listing well after its last change', async () => {
    const { root, file } = await folderWith('v1');
    const cache = await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + second);
    expect(cache.hashOf((await collectFolder(root)).files[0]!)).toBe('a'.repeat(64));
    expect(cache.deployedTo(target)).toEqual({ deploymentId: 'd1', files: new Map([['index.html', 'a'.repeat(64)]]) });
    expect(cache.deployedTo(other)).toBeUndefined();
  });

  it('reads a file again when its content changed, even with its size and modification time put back', async () => {
    const { root, file } = await folderWith('v1');
    const cache = await recorded(root, file, 'a'.repeat(64), file.identity.ctimeNs + second);
    await writeFile(join(root, 'index.html'), 'v2');
    const mtime = new Date(Number(file.identity.mtimeNs / 1_000_000n));
    await utimes(join(root, 'index.html'), mtime, mtime);
    const changed = (await collectFolder(root)).files[0]!;
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

describe("the record of a folder's deployments", () => {
  it('remembers the deployment the last deploy to a target made, and its files', async () => {
    const root = await writeTree({ 'index.html': 'v1', 'css/a.css': 'a' });
    await deployFrom(root, target, { 'index.html': hex('1'), 'css/a.css': hex('a') }, 'd1');
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd1', files: { 'css/a.css': hex('a'), 'index.html': hex('1') } });
    expect(await deployedTo(root, other)).toBeUndefined();

    await rm(join(root, 'css'), { recursive: true });
    await writeFile(join(root, 'about.html'), 'about');
    await writeFile(join(root, 'index.html'), 'v2');
    await settle();
    await deployFrom(root, target, { 'index.html': hex('2'), 'about.html': hex('b') }, 'd2');
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd2', files: { 'about.html': hex('b'), 'index.html': hex('2') } });
  });

  it('keeps the deployment before when a deploy did not succeed', async () => {
    const root = await writeTree({ 'index.html': 'v1' });
    await deployFrom(root, target, { 'index.html': hex('1') }, 'd1');
    await writeFile(join(root, 'index.html'), 'v2');
    await writeFile(join(root, 'new.html'), 'new');
    await settle();
    await deployFrom(root, target, { 'index.html': hex('2'), 'new.html': hex('3') }, undefined);
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd1', files: { 'index.html': hex('1') } });
    // The files' hashes are the new ones all the same.
    const cache = await HashCache.open(root, true, env);
    expect((await collectFolder(root)).files.map((file) => cache.hashOf(file))).toEqual([hex('2'), hex('3')]);
  });

  it('keeps each target its own deployment, deployed from the folder as it was then', async () => {
    const root = await writeTree({ 'index.html': 'v1', 'old.html': 'old' });
    await deployFrom(root, target, { 'index.html': hex('1'), 'old.html': hex('0') }, 'd1');
    await rm(join(root, 'old.html'));
    await writeFile(join(root, 'index.html'), 'v2');
    await settle();
    await deployFrom(root, other, { 'index.html': hex('2') }, 'e1');
    // A failed deploy to a third target, and an unchanged redeploy to the second, keep both.
    await deployFrom(root, 'https://api.example third.example', { 'index.html': hex('2') }, undefined);
    await deployFrom(root, other, { 'index.html': hex('2') }, 'e2');
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd1', files: { 'index.html': hex('1'), 'old.html': hex('0') } });
    expect(await deployedTo(root, other)).toEqual({ deploymentId: 'e2', files: { 'index.html': hex('2') } });
    expect(await deployedTo(root, 'https://api.example third.example')).toBeUndefined();
    // The unchanged folder deployed to the first target again: the second's record stays.
    await deployFrom(root, target, { 'index.html': hex('2') }, 'd2');
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd2', files: { 'index.html': hex('2') } });
    expect(await deployedTo(root, other)).toEqual({ deploymentId: 'e2', files: { 'index.html': hex('2') } });
  });

  it('forgets a deployment whose listing another run replaced meanwhile', async () => {
    const root = await writeTree({ 'index.html': 'v1' });
    await deployFrom(root, target, { 'index.html': hex('1') }, 'd1');
    // Two runs at once: the second lists the folder, changed, after the first did, and fails.
    const first = await HashCache.open(root, true, env);
    const [file] = (await collectFolder(root)).files;
    expect(first.hashOf(file!)).toBe(hex('1'));
    await first.save([{ ...file!, hash: hex('1') }], BigInt(Date.now()) * 1_000_000n, other);
    await writeFile(join(root, 'index.html'), 'v2');
    await settle();
    await deployFrom(root, target, { 'index.html': hex('2') }, undefined);
    await first.deployed(other, 'e1');
    expect(await deployedTo(root, other)).toBeUndefined();
    expect(await deployedTo(root, target)).toEqual({ deploymentId: 'd1', files: { 'index.html': hex('1') } });
  });

  it('keeps only a small file to write once the deployment is known', async () => {
    const root = await writeTree(Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`pages/page-${index}.html`, `page ${index}`])));
    await deployFrom(root, target, Object.fromEntries((await collectFolder(root)).files.map((file, index) => [file.path, index.toString(16).padStart(64, '0')])), 'd1');
    const folder = join(work, 'cache', 'sitehost', 'folders');
    const sizes = Object.fromEntries(await Promise.all((await readdir(folder)).map(async (name) => [name.replace(/^[0-9a-f]+/, ''), (await stat(join(folder, name))).size])));
    expect(Object.keys(sizes).sort()).toEqual(['.deployed.json', '.json']);
    expect(sizes['.deployed.json']).toBeLessThan(200);
    expect((await deployedTo(root, target))?.files).toHaveProperty(['pages/page-499.html']);
  });

  it('ignores a record of an older version', async () => {
    const root = await writeTree({ 'index.html': 'v1' });
    await deployFrom(root, target, { 'index.html': hex('1') }, 'd1');
    const folder = join(work, 'cache', 'sitehost', 'folders');
    for (const name of await readdir(folder)) {
      const content = JSON.parse(await readFile(join(folder, name), 'utf8')) as { version: number };
      await writeFile(join(folder, name), JSON.stringify({ ...content, version: 1 }));
    }
    const cache = await HashCache.open(root, true, env);
    expect(cache.deployedTo(target)).toBeUndefined();
    expect(cache.hashOf((await collectFolder(root)).files[0]!)).toBeUndefined();
  });

  it('patches one set of files into another as RFC 7396 merges', () => {
    const from = new Map([['index.html', hex('1')], ['same.css', hex('2')], ['gone.js', hex('3')]]);
    const to = new Map([['index.html', hex('4')], ['same.css', hex('2')], ['__proto__', hex('5')]]);
    const patch = patchBetween(from, to);
    expect(patch).toEqual(JSON.parse(`{"index.html":"${hex('4')}","__proto__":"${hex('5')}","gone.js":null}`));
    expect(Object.getPrototypeOf(patch)).toBe(Object.prototype);
    expect(patchBetween(to, to)).toEqual({});
  });
});

