import { type FileEntry, type FileIndex, readFileIndex } from '../storage/file-index';
import type { Deployment } from '../storage/sites';
import { WeightedLru } from './lru';

/** A deployment's files, arranged for lookups: built once per deployment and isolate. */
export interface SiteFiles {
  deploymentId: string;
  /** R2 keys of the packs, as `FileEntry.pack` indexes them. */
  packs: readonly string[];
  byPath: ReadonlyMap<string, FileEntry>;
  /** Every folder holding a file, as a path without slashes at either end; '' is the top. */
  directories: ReadonlySet<string>;
}

/** File entries kept across all cached deployments: about 300 bytes each, so some 30 MB. */
const maxCachedEntries = 100_000;
const cache = new WeightedLru<string, SiteFiles>(maxCachedEntries);

/**
 * The files of a deployment, from the isolate's cache. A deployment never changes once
 * written, so its id is the cache key: the next deployment is a new id, and the site's
 * current deployment id comes from its coordinator, under a lease. The caches here hold
 * values, never promises: a promise settled by another request's I/O must not be awaited
 * (Workers tie I/O to its request), so concurrent misses each read for themselves.
 */
export async function siteFilesOf(bucket: R2Bucket, deployment: Deployment): Promise<SiteFiles> {
  const cached = cache.get(deployment.id);
  if (cached) return cached;
  const files = arrange(await readFileIndex(bucket, deployment.indexKey));
  cache.set(deployment.id, files, deployment.fileCount + 1);
  return files;
}

function arrange(index: FileIndex): SiteFiles {
  const byPath = new Map<string, FileEntry>();
  const directories = new Set<string>(['']);
  for (const entry of index.files) {
    byPath.set(entry.path, entry);
    for (let slash = entry.path.indexOf('/'); slash !== -1; slash = entry.path.indexOf('/', slash + 1)) {
      directories.add(entry.path.slice(0, slash));
    }
  }
  return { deploymentId: index.deploymentId, packs: index.packs, byPath, directories };
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/** Files up to this size are kept in the isolate once read; larger ones are streamed from R2 every time. */
const maxKeptFileBytes = 1024 * 1024;
/** Bytes kept across all sites. */
const maxKeptBytes = 32 * 1024 * 1024;
/**
 * By content hash: the same bytes whatever the site or deployment, so never stale. Kept as
 * Blobs: the runtime sends a Blob body from its own memory, where an ArrayBuffer body is
 * copied out of the JavaScript heap on every response (`npm run bench:serve` shows it).
 */
const kept = new WeightedLru<string, Blob>(maxKeptBytes);

/**
 * The file's bytes, or a range of them: from the isolate when the file is small and was read
 * lately, else with one ranged read of its pack.
 */
export async function readFile(bucket: R2Bucket, files: SiteFiles, entry: FileEntry, range?: ByteRange): Promise<BodyInit> {
  if (entry.size > maxKeptFileBytes) return (await readPack(bucket, files, entry, range)).body;
  let blob = kept.get(entry.hash);
  if (!blob) {
    blob = await (await readPack(bucket, files, entry)).blob();
    kept.set(entry.hash, blob, entry.size);
  }
  return range ? blob.slice(range.start, range.end + 1) : blob;
}

async function readPack(bucket: R2Bucket, files: SiteFiles, entry: FileEntry, range?: ByteRange): Promise<R2ObjectBody> {
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start + 1 : entry.size;
  const key = files.packs[entry.pack]!;
  const object = await bucket.get(key, { range: { offset: entry.offset + start, length } });
  if (!object) throw new Error(`Pack ${key} of deployment ${files.deploymentId} is missing`);
  return object;
}
