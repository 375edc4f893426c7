import type { SiteRules } from '../rules/rules-files';

/**
 * A deployment's file index: every file's place in the packs, its hash and type. Stored as
 * one JSON object in R2 beside the packs, so switching a site to a new deployment is one
 * row update in D1 and serving a file is one ranged read once the index is cached.
 */
export interface FileEntry {
  /** Site-relative path without a leading slash, NFC, e.g. `css/a.css`. */
  path: string;
  /** Index into `FileIndex.packs`. */
  pack: number;
  offset: number;
  size: number;
  /** SHA-256 of the content, base64url: the file's strong ETag. */
  hash: string;
  contentType: string;
  /** When this content was deployed (epoch ms). */
  modified: number;
}

export interface FileIndex {
  deploymentId: string;
  created: number;
  /** R2 keys of the packs holding this deployment's bytes. */
  packs: string[];
  /** Sorted by path. */
  files: FileEntry[];
  /** The rules of its `_redirects` and `_headers`, read when it was deployed (src/rules/deployment-rules.ts). */
  rules?: SiteRules;
}

/** Where a site's objects live in R2. Everything of a site is under `sitePrefix`, and every site under `sites`. */
export const keys = {
  sites: 'sites/',
  sitePrefix: (domain: string) => `sites/${domain}/`,
  /** The domain whose prefix holds `key`, if any. */
  siteOf: (key: string): string | undefined => /^sites\/([^/]+)\//.exec(key)?.[1],
  pack: (domain: string, id: string) => `sites/${domain}/packs/${id}`,
  index: (domain: string, deploymentId: string) => `sites/${domain}/deployments/${deploymentId}.json`,
  /** An incremental deploy's manifest, until it is finalized. */
  manifest: (domain: string, deploymentId: string) => `sites/${domain}/deployments/${deploymentId}.manifest.json`,
};

/** The order of `FileIndex.files` and of a manifest's files: by path, code unit by code unit (not locale-aware). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * How an index is stored (version 2): each file a tuple, its type and time as positions in
 * tables, since most files share a few types and the time of the deploy that brought them. Half
 * the bytes of objects with named members (version 1, still read): a redeploy of a 2,000-file
 * site writes its index before it goes live, and a location that lacks it reads it whole.
 */
interface StoredIndex {
  version: 2;
  deploymentId: string;
  created: number;
  packs: string[];
  types: string[];
  times: number[];
  /** Path, pack, offset, size, hash, type (in `types`), modified (in `times`). */
  files: [string, number, number, number, string, number, number][];
  rules?: SiteRules;
}

/** An index's stored JSON text. */
export function encodeFileIndex(index: FileIndex): string {
  const types = new Map<string, number>();
  const times = new Map<number, number>();
  const positionIn = <T>(table: Map<T, number>, value: T): number => {
    let position = table.get(value);
    if (position === undefined) table.set(value, (position = table.size));
    return position;
  };
  const files = index.files.map((file): StoredIndex['files'][number] => [
    file.path,
    file.pack,
    file.offset,
    file.size,
    file.hash,
    positionIn(types, file.contentType),
    positionIn(times, file.modified),
  ]);
  const stored: StoredIndex = { version: 2, deploymentId: index.deploymentId, created: index.created, packs: index.packs, types: [...types.keys()], times: [...times.keys()], files };
  if (index.rules) stored.rules = index.rules;
  return JSON.stringify(stored);
}

/** The index an encoded text holds, in either stored version. */
export function decodeFileIndex(text: string): FileIndex {
  const stored = JSON.parse(text) as StoredIndex | (FileIndex & { version: 1 });
  if (stored.version === 1) return { deploymentId: stored.deploymentId, created: stored.created, packs: stored.packs, files: stored.files };
  const { types, times } = stored;
  return {
    deploymentId: stored.deploymentId,
    created: stored.created,
    packs: stored.packs,
    files: stored.files.map(([path, pack, offset, size, hash, type, time]) => ({ path, pack, offset, size, hash, contentType: types[type]!, modified: times[time]! })),
    ...(stored.rules ? { rules: stored.rules } : {}),
  };
}

/** Stores `index` at `key`; answers its size in bytes. */
export async function writeFileIndex(bucket: R2Bucket, key: string, index: FileIndex): Promise<number> {
  const stored = await bucket.put(key, encodeFileIndex(index), {
    httpMetadata: { contentType: 'application/json' },
  });
  return stored.size;
}

/** An index's text as stored (either version), for a cache to keep as it is. */
export async function readFileIndexText(bucket: R2Bucket, key: string): Promise<string> {
  const object = await bucket.get(key);
  if (!object) throw new Error(`File index ${key} is missing`);
  return object.text();
}

export async function readFileIndex(bucket: R2Bucket, key: string): Promise<FileIndex> {
  return decodeFileIndex(await readFileIndexText(bucket, key));
}

/** A new index with `entry` added or replacing the file at its path; `entry.pack` indexes `packKey`. */
export function withFile(index: FileIndex, entry: Omit<FileEntry, 'pack'>, packKey: string | null, deploymentId: string, now: number): FileIndex {
  const packs = packKey === null || index.packs.includes(packKey) ? [...index.packs] : [...index.packs, packKey];
  const added: FileEntry = { ...entry, pack: packKey === null ? -1 : packs.indexOf(packKey) };
  const files = index.files.filter((file) => file.path !== entry.path);
  files.push(added);
  files.sort(byPath);
  return compactPacks({ deploymentId, created: now, packs, files });
}

/** A new index without the file at `path`. */
export function withoutFile(index: FileIndex, path: string, deploymentId: string, now: number): FileIndex {
  const files = index.files.filter((file) => file.path !== path);
  return compactPacks({ deploymentId, created: now, packs: index.packs, files });
}

/** Drops packs no file uses any more, renumbering the entries' pack references. */
function compactPacks(index: FileIndex): FileIndex {
  const used = [...new Set(index.files.filter((file) => file.size > 0).map((file) => file.pack))].sort((a, b) => a - b);
  const renumber = new Map(used.map((old, position) => [old, position]));
  return {
    ...index,
    packs: used.map((old) => index.packs[old]!),
    files: index.files.map((file) => ({ ...file, pack: renumber.get(file.pack) ?? 0 })),
  };
}
