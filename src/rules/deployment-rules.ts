import { hashCredentials } from '../protection/basic-auth';
import { parseHeadersFile } from './headers-file';
import { parseRedirectsFile } from './redirects-file';
import { type RulesFileName, type SiteRules, rulesFileLimits, rulesFileProblem, rulesFilesProblem } from './rules-files';
import type { HostConfiguration } from '../configuration/parse';
import { Problem } from '../http/problem';
import { normaliseSitePath } from '../http/request-path';
import type { FileEntry, FileIndex } from '../storage/file-index';

/** The files at the top of the served root whose rules are compiled into a deployment, and never served. */
export const rulesFileNames: readonly RulesFileName[] = ['_redirects', '_headers'];

/** Where the rules files of the root `root` (the host option, normalised: '' for the top) lie. */
export function rulesFilePath(root: string, name: RulesFileName): string {
  return root === '' ? name : `${root}/${name}`;
}

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
 * `index` with the rules of the `_redirects` and `_headers` at the top of the served `root`
 * (none: no `rules`), read at deploy time so that serving never parses them. Lines that cannot
 * be read are one 400 naming every one, thrown before the deployment is stored.
 */
export async function withSiteRules(index: FileIndex, read: ReadEntry, root: string): Promise<FileIndex> {
  const { rules: _previous, ...rest } = index;
  const texts = await Promise.all(
    rulesFileNames.map(async (name) => {
      const entry = index.files.find((file) => file.path === rulesFilePath(root, name));
      return entry ? textOf(name, entry, await read(entry, index.packs[entry.pack]!)) : undefined;
    }),
  );
  const [redirectsText, headersText] = texts;
  if (redirectsText === undefined && headersText === undefined) return root === '' ? rest : { ...rest, rules: { redirects: [], headers: [], root } };
  const problems: Problem[] = [];
  const parsed = <T>(text: string | undefined, parse: (text: string) => T[]): T[] => {
    try {
      return text === undefined ? [] : parse(text);
    } catch (error) {
      if (!(error instanceof Problem) || error.kind !== 'invalid-rules-file') throw error;
      problems.push(error);
      return [];
    }
  };
  const rules = await withHashedCredentials({ redirects: parsed(redirectsText, parseRedirectsFile), headers: parsed(headersText, parseHeadersFile) });
  if (problems.length > 0) throw rulesFilesProblem(problems);
  return { ...rest, rules: root === '' ? rules : { ...rules, root } };
}

/** The `Basic-Auth` pairs of `_headers` rules moved out of them and hashed: only hashes are stored, and shown nowhere. */
async function withHashedCredentials(rules: SiteRules): Promise<SiteRules> {
  if (!rules.headers.some((rule) => rule.basicAuth)) return rules;
  const basicAuth = await Promise.all(
    rules.headers.flatMap(({ uri, basicAuth: pairs }) => (pairs ? [hashCredentials(pairs).then((credentials) => ({ uri, credentials }))] : [])),
  );
  return { ...rules, headers: rules.headers.map(({ basicAuth: _pairs, ...rule }) => rule), basicAuth };
}

/** The served root a configuration names, normalised as serving reads it ('' for the top). */
export function configuredRoot(configuration: HostConfiguration | undefined): string {
  const root = configuration?.root;
  return typeof root === 'string' ? normaliseSitePath(root) : '';
}

/** The root whose rules files `index` holds the rules of. */
export function rulesRootOf(index: FileIndex): string {
  return index.rules?.root ?? '';
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
export function withEditedRules(previous: FileIndex, next: FileIndex, path: string, read: ReadEntry, root: string): Promise<FileIndex> {
  if (root !== rulesRootOf(previous) || rulesFileNames.some((name) => rulesFilePath(root, name) === path)) return withSiteRules(next, read, root);
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
