/**
 * A manifest patch's base: a kept deployment of the site, whose index gives the paths the patch
 * leaves alone and where their bytes lie. The Worker reads it to resolve the patch, and the
 * coordinator again under its lock, where the base's being kept is what keeps those bytes.
 */
import { emptyHash, type ManifestFile } from '../../content/manifest';
import { Problem } from '../../http/problem';
import type { BlobLocation, DeploymentRecord } from '../../storage/deployments-table';
import type { FileIndex } from '../../storage/file-index';

/** The base deployment `id` of `domain`, `record` being its row as found (none: not kept); 409 unless it is a ready deployment. */
export function keptBase(domain: string, id: string, record: DeploymentRecord | null | undefined): DeploymentRecord {
  if (record?.state !== 'ready') {
    throw new Problem('base-not-kept', `The deployment ${JSON.stringify(id)} is not one ${domain} keeps; send the whole manifest, without "base".`);
  }
  return record;
}

/**
 * The index of the base deployment `id` of `domain` (null: it has no files), checked as
 * `keptBase` does. `readIndex` reads an index by its key: indexes never change, so a copy in
 * memory will do.
 */
export async function baseIndex(
  domain: string,
  id: string,
  record: DeploymentRecord | null | undefined,
  readIndex: (key: string) => Promise<FileIndex>,
): Promise<FileIndex | null> {
  const { indexKey } = keptBase(domain, id, record);
  return indexKey ? readIndex(indexKey) : null;
}

/** Adds to `known` where the bytes of `base`'s files lie (its index holds their places), for the hashes `known` does not place yet. */
export function addBaseLocations(base: FileIndex | null, known: Map<string, BlobLocation>): void {
  for (const file of base?.files ?? []) {
    if (file.size > 0 && !known.has(file.hash)) known.set(file.hash, { hash: file.hash, pack: base!.packs[file.pack]!, offset: file.offset, size: file.size });
  }
}

/** Where the site stores the bytes of some hashes: its blob index (../records/blob-index.ts), asked in or through the coordinator. */
export type StoredLookup = (hashes: readonly string[]) => Promise<Map<string, BlobLocation>>;

/**
 * Adds to `known` where the site stores the bytes of the other `files`: one lookup, and none
 * when the base and the request's own blobs hold them all (a small redeploy's usual case).
 */
export async function addStoredLocations(lookup: StoredLookup, files: readonly ManifestFile[], known: Map<string, BlobLocation>): Promise<void> {
  const others = files.filter((file) => file.hash !== emptyHash && !known.has(file.hash)).map((file) => file.hash);
  if (others.length === 0) return;
  for (const [hash, blob] of await lookup(others)) known.set(hash, blob);
}
