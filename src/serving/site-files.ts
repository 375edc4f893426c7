import { edgeKeys, immutable } from '../coordinator/edge/edge-cache';
import type { EdgeSettings } from '../platform/settings';
import { type FileEntry, type FileIndex, decodeFileIndex, readFileIndexText } from '../storage/file-index';
import type { Deployment } from '../storage/sites-table';
import { WeightedLru } from './lru';
import { type CompiledSiteRules, compileSiteRules } from '../rules/compiled-rules';
import { rulesFileNames } from '../rules/deployment-rules';

/**
 * Where a deployment's immutable things come from, nearest first: this isolate's memory, the
 * location's cache, then R2 (regional). What R2 answers is stored in the location after the
 * response (`waitUntil`).
 */
export interface FileStores {
  bucket: R2Bucket;
  location: Cache;
  edge: EdgeSettings;
  waitUntil(promise: Promise<unknown>): void;
}

/** A deployment's files, arranged for lookups: built once per deployment and isolate. */
export interface SiteFiles {
  deploymentId: string;
  /** R2 keys of the packs, as `FileEntry.pack` indexes them. */
  packs: readonly string[];
  byPath: ReadonlyMap<string, FileEntry>;
  /** Every folder holding a file, as a path without slashes at either end; '' is the top. */
  directories: ReadonlySet<string>;
  /** The rules of its `_redirects` and `_headers`, which are themselves not served. */
  rules: CompiledSiteRules;
}

/** What a deployment without files serves: its host options alone answer (redirects, say). */
export const noFiles: SiteFiles = { deploymentId: '', packs: [], byPath: new Map(), directories: new Set(['']), rules: compileSiteRules(undefined) };

/** File entries kept across all cached deployments: about 300 bytes each, so some 30 MB. */
const maxCachedEntries = 100_000;
const cache = new WeightedLru<string, SiteFiles>(maxCachedEntries);

/**
 * The files of a deployment, from the isolate's memory or the location's cache. A deployment
 * never changes once written, so its id is the key: the next deployment is a new id, and the
 * site's current deployment id comes from its live record. The memory holds values, never
 * promises: a promise settled by another request's I/O must not be awaited (Workers tie I/O to
 * its request), so concurrent misses each read for themselves.
 */
export async function siteFilesOf(stores: FileStores, deployment: Deployment): Promise<SiteFiles> {
  const cached = cache.get(deployment.id);
  if (cached) return cached;
  const key = edgeKeys.index(stores.edge, deployment.id);
  const located = await stores.location.match(key);
  let index: FileIndex;
  if (located) {
    index = decodeFileIndex(await located.text());
  } else {
    const text = await readFileIndexText(stores.bucket, deployment.indexKey);
    index = decodeFileIndex(text);
    stores.waitUntil(storeImmutable(stores, key, text));
  }
  const files = arrange(index);
  cache.set(deployment.id, files, deployment.fileCount + 1);
  return files;
}

function arrange(index: FileIndex): SiteFiles {
  const byPath = new Map<string, FileEntry>();
  const directories = new Set<string>(['']);
  for (const entry of index.files) {
    if (hidden.has(entry.path)) continue;
    byPath.set(entry.path, entry);
    for (let slash = entry.path.indexOf('/'); slash !== -1; slash = entry.path.indexOf('/', slash + 1)) {
      directories.add(entry.path.slice(0, slash));
    }
  }
  return { deploymentId: index.deploymentId, packs: index.packs, byPath, directories, rules: compileSiteRules(index.rules) };
}

/** Read as rules when the deployment was made, never served (as on Netlify and Cloudflare Pages). */
const hidden: ReadonlySet<string> = new Set(rulesFileNames);

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
 * lately, else from the location's cache, else with one read of its pack.
 */
export async function readFile(stores: FileStores, files: SiteFiles, entry: FileEntry, range?: ByteRange): Promise<BodyInit> {
  const key = edgeKeys.file(stores.edge, entry.hash);
  if (entry.size > maxKeptFileBytes) return readLargeFile(stores, key, files, entry, range);
  let blob = kept.get(entry.hash);
  if (!blob) {
    const located = await stores.location.match(key);
    blob = located ? await located.blob() : await (await readPack(stores.bucket, files, entry)).blob();
    if (!located) stores.waitUntil(storeImmutable(stores, key, blob));
    kept.set(entry.hash, blob, entry.size);
  }
  return range ? blob.slice(range.start, range.end + 1) : blob;
}

/** A file too large for the isolate's memory: streamed from the location's cache (which answers ranges itself), or from R2 and then stored whole. */
async function readLargeFile(stores: FileStores, key: string, files: SiteFiles, entry: FileEntry, range?: ByteRange): Promise<BodyInit> {
  const located = await stores.location.match(range ? new Request(key, { headers: { range: `bytes=${range.start}-${range.end}` } }) : key);
  if (located?.body && (range ? located.status === 206 : located.status === 200)) return located.body;
  await located?.body?.cancel();
  if (range) {
    stores.waitUntil(storeWhole(stores, key, files, entry));
    return (await readPack(stores.bucket, files, entry, range)).body;
  }
  const [sent, stored] = (await readPack(stores.bucket, files, entry)).body.tee();
  stores.waitUntil(storeImmutable(stores, key, stored, entry.size));
  return sent;
}

async function storeWhole(stores: FileStores, key: string, files: SiteFiles, entry: FileEntry): Promise<void> {
  await storeImmutable(stores, key, (await readPack(stores.bucket, files, entry)).body, entry.size);
}

/** Keeps an immutable thing in the location's cache; a streamed body says its length, which the cache needs. */
function storeImmutable(stores: FileStores, key: string, body: BodyInit, length?: number): Promise<void> {
  const headers: Record<string, string> = { 'cache-control': immutable };
  if (length !== undefined) headers['content-length'] = String(length);
  return stores.location.put(key, new Response(body, { headers }));
}

async function readPack(bucket: R2Bucket, files: SiteFiles, entry: FileEntry, range?: ByteRange): Promise<R2ObjectBody> {
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start + 1 : entry.size;
  const key = files.packs[entry.pack]!;
  const object = await bucket.get(key, { range: { offset: entry.offset + start, length } });
  if (!object) throw new Error(`Pack ${key} of deployment ${files.deploymentId} is missing`);
  return object;
}
