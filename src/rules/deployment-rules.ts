import { parseHeadersFile } from './headers-file';
import { parseRedirectsFile } from './redirects-file';
import { type RulesFileName, type SiteRules, rulesFileLimits, rulesFileProblem } from './rules-files';
import { Problem } from '../http/problem';
import type { FileEntry, FileIndex } from '../storage/file-index';

/** The files at the top of a deployment whose rules are compiled into it, and never served. */
export const rulesFileNames: readonly RulesFileName[] = ['_redirects', '_headers'];

/** The bytes of a file of the index, wherever they lie. */
export type ReadEntry = (entry: FileEntry, pack: string) => Promise<ArrayBuffer>;

/** Reads an entry with one ranged read of its pack. */
export function readFromBucket(bucket: R2Bucket): ReadEntry {
  return async (entry, pack) => {
    const object = await bucket.get(pack, { range: { offset: entry.offset, length: entry.size } });
    if (!object) throw new Error(`Pack ${pack} is missing`);
    return object.arrayBuffer();
  };
}

/**
 * `index` with the rules of its `_redirects` and `_headers` (none: no `rules`), read at deploy
 * time so that serving never parses them. A file that cannot be read is a 400 naming its line,
 * thrown before the deployment is stored.
 */
export async function withSiteRules(index: FileIndex, read: ReadEntry): Promise<FileIndex> {
  const { rules: _previous, ...rest } = index;
  const texts = await Promise.all(
    rulesFileNames.map(async (name) => {
      const entry = index.files.find((file) => file.path === name);
      return entry ? textOf(name, entry, await read(entry, index.packs[entry.pack]!)) : undefined;
    }),
  );
  const [redirects, headers] = texts;
  if (redirects === undefined && headers === undefined) return rest;
  const rules: SiteRules = {
    redirects: redirects === undefined ? [] : parseRedirectsFile(redirects),
    headers: headers === undefined ? [] : parseHeadersFile(headers),
  };
  return { ...rest, rules };
}

function textOf(name: RulesFileName, entry: FileEntry, bytes: ArrayBuffer): string {
  if (entry.size > rulesFileLimits.MAX_RULES_FILE_BYTES) {
    throw new Problem('invalid-rules-file', `${name} is ${entry.size} bytes; at most ${rulesFileLimits.MAX_RULES_FILE_BYTES} are allowed.`, {
      extensions: { file: name, limit: 'MAX_RULES_FILE_BYTES', value: rulesFileLimits.MAX_RULES_FILE_BYTES },
    });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const lines = new TextDecoder().decode(bytes).split('\n');
    throw rulesFileProblem(name, lines.findIndex((line) => line.includes('\uFFFD')) + 1, 'the line is not UTF-8 text.');
  }
}

/** The index after one file at `path` was added, replaced or removed: its rules read again only when that file is one of theirs. */
export function withEditedRules(previous: FileIndex, next: FileIndex, path: string, read: ReadEntry): Promise<FileIndex> {
  if ((rulesFileNames as readonly string[]).includes(path)) return withSiteRules(next, read);
  return Promise.resolve(previous.rules ? { ...next, rules: previous.rules } : next);
}

/** Reads from `bytes` what lies in the pack they are about to be stored as, and the rest from the bucket. */
export function readWithPending(bucket: R2Bucket, pending?: { pack: string; bytes?: Uint8Array }): ReadEntry {
  const stored = readFromBucket(bucket);
  return async (entry, pack) => {
    if (pending?.bytes && pack === pending.pack) return pending.bytes.slice(entry.offset, entry.offset + entry.size).buffer;
    return stored(entry, pack);
  };
}
