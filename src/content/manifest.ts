/**
 * An incremental deploy's manifest: every path of the new deployment with its content's SHA-256,
 * and optionally its host options. Checked by the multipart deploy's rules (paths, the common top
 * folder dropped, files and folders, MAX_FILES), and stored in R2 beside the deployment's index
 * until the deployment is finalized. Or a patch of a kept deployment's files (`base`): the paths
 * that changed, so that a redeploy of a large site sends and checks only those.
 */
import { base64url } from 'jose';
import { type HostConfiguration, checkHostConfiguration } from '../configuration/parse';
import { maxJsonBytes } from '../http/json-body';
import { Problem } from '../http/problem';
import { type RequestedLabels, checkedAlias, checkedMessage } from './label-checks';
import { checkFilesAndFolders, checkSiteSize } from './file-rules';
import { type FileIndex, byPath } from '../storage/file-index';
import { type DeployLimits, limitExceeded } from './deploy-limits';
import { checkFilePath, commonFolderPrefixLength, maxPathBytes } from './paths';

export interface ManifestFile {
  path: string;
  /** SHA-256, base64url, as the file index holds it. */
  hash: string;
}

export interface Manifest {
  /** Sorted by path. */
  files: ManifestFile[];
  configuration?: HostConfiguration;
}

/** SHA-256 of no bytes: an empty file needs no upload. */
export const emptyHash = '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU';

/**
 * A SHA-256 in hex as base64url. By hand: a manifest converts every one of its hashes, and jose's
 * encoder, made for a few tokens, took 7 ms of a 2,000-file manifest's 15 (this takes 3).
 */
export function hexToHash(hex: string): string {
  let binary = '';
  for (let at = 0; at < hex.length; at += 2) binary += String.fromCharCode(parseInt(hex.slice(at, at + 2), 16));
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function hashToHex(hash: string): string {
  return Array.from(base64url.decode(hash), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const sha256Hex = /^[0-9a-f]{64}$/;

/** Whether `name` is a SHA-256 in lowercase hex, as blob parts are named. */
export function isSha256Hex(name: string): boolean {
  return sha256Hex.test(name);
}

/** A `files` entry's bytes beside its path: `"":"<hash>",`. */
const fileEntryBytes = 72;
/** A `sizes` entry: `"<hash>":<up to 16 digits>,`. */
const sizeEntryBytes = 88;

/**
 * The largest manifest body within the limits: MAX_FILES entries of the longest path and a hash
 * (JSON-escaped at most six bytes per byte of path), as many sizes, and host options. Checked
 * while reading, so no body is held whole past it.
 */
export function maxManifestBytes(limits: DeployLimits): number {
  return limits.maxFiles * (6 * maxPathBytes + fileEntryBytes + sizeEntryBytes) + maxJsonBytes;
}

/** 413 for a manifest body over `maxManifestBytes`. */
export function manifestTooLarge(limits: DeployLimits): Problem {
  return limitExceeded(limits, 'maxFiles', `The manifest is larger than the ${maxManifestBytes(limits)} bytes a manifest within the limits can be`);
}

function invalid(detail: string): Problem {
  return new Problem('invalid-request', detail);
}

/** What becomes of a manifest's deployment once no bytes are missing: it goes live, or waits as a preview. */
export type Finalize = 'live' | 'preview';

/**
 * A manifest against the kept deployment `base`: its files with `files` merged in as RFC 7396
 * merges (a hash adds or replaces a path, null removes it). Paths are the site's own: no common
 * folder is dropped, since a patch lists only some of them.
 */
export interface ManifestPatch {
  base: string;
  /** Site paths (NFC) to their content's SHA-256 (base64url), or null for a path removed. */
  files: Map<string, string | null>;
  configuration?: HostConfiguration;
}

/** What a deployment is made of: a whole manifest, or a patch of a kept deployment's files. */
export type ManifestContent = { manifest: Manifest } | { patch: ManifestPatch };

/**
 * A manifest (or a patch); whether to finalize its deployment in the same request when the
 * service lacks no bytes; the deployment's message and alias, checked; and the sizes the client declares of the content it will upload
 * (SHA-256 base64url → bytes), so that a deploy over the limits is refused before its upload.
 */
export type ManifestRequest = ManifestContent & { finalize?: Finalize; sizes: ReadonlyMap<string, number>; labels: RequestedLabels };

/** The files of `content` whose bytes a deploy must have: all of a manifest's, or those a patch adds. */
export function filesNamed(content: ManifestContent): ManifestFile[] {
  if ('manifest' in content) return content.manifest.files;
  const added: ManifestFile[] = [];
  for (const [path, hash] of content.patch.files) if (hash !== null) added.push({ path, hash });
  return added;
}

/**
 * Checks a manifest body: 400 naming what is wrong, 413 past MAX_FILES, or when a declared size
 * is over MAX_FILE_BYTES.
 */
export function checkManifest(body: unknown, limits: DeployLimits): ManifestRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The manifest must be a JSON object with "files".');
  const { files, configuration, finalize, base, sizes, message, alias, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw invalid(`Unknown member ${JSON.stringify(unknown[0])}: a manifest has "files", "base", "sizes", "configuration", "finalize", "message" and "alias" only.`);
  }
  const labels: RequestedLabels = { message: checkedMessage(message), alias: checkedAlias(alias) };
  if (finalize !== undefined && finalize !== 'live' && finalize !== 'preview') throw invalid('"finalize" must be "live" or "preview".');
  if (base !== undefined && (typeof base !== 'string' || base === '')) throw invalid('"base" must be the id of a deployment of this site.');
  if (typeof files !== 'object' || files === null || Array.isArray(files)) {
    throw invalid(`"files" must be an object of paths to SHA-256 hashes (lowercase hex)${base === undefined ? '' : ', or null for a path removed'}.`);
  }
  const entries = Object.entries(files as Record<string, unknown>);
  checkSiteSize(limits, entries.length, 0);
  const seen = new Set<string>();
  const checked = entries.map(([name, hex]) => {
    if (base !== undefined && hex === null) return { path: checkedPath(name, seen), hash: null };
    if (typeof hex !== 'string' || !isSha256Hex(hex)) {
      throw invalid(`The hash of ${JSON.stringify(name)} must be a SHA-256 in lowercase hex (64 characters)${base === undefined ? '' : ', or null'}.`);
    }
    return { path: checkedPath(name, seen), hash: hexToHash(hex) };
  });
  const hostOptions = configuration === undefined ? {} : { configuration: checkHostConfiguration(configuration) };
  const finalizing = finalize === undefined ? {} : { finalize: finalize as Finalize };
  if (typeof base === 'string') {
    const patch = { base, files: new Map(checked.map((file) => [file.path, file.hash])), ...hostOptions };
    return { patch, ...finalizing, sizes: checkSizes(sizes, checked, limits), labels };
  }
  const whole = checked as ManifestFile[];
  const strip = commonFolderPrefixLength(whole.map((file) => file.path));
  for (const file of whole) file.path = file.path.slice(strip);
  checkFilesAndFolders(new Set(whole.map((file) => file.path)));
  // After the common folder is dropped: a refusal names a file by its path on the site.
  return { manifest: { files: whole.sort(byPath), ...hostOptions }, ...finalizing, sizes: checkSizes(sizes, whole, limits), labels };
}

/**
 * `sizes`: the byte count of each content the manifest names, as the client declares it (every
 * hash or some). A hint: the upload still checks each blob's real bytes against the limits.
 */
function checkSizes(sizes: unknown, files: readonly { path: string; hash: string | null }[], limits: DeployLimits): Map<string, number> {
  const declared = new Map<string, number>();
  if (sizes === undefined) return declared;
  if (typeof sizes !== 'object' || sizes === null || Array.isArray(sizes)) {
    throw invalid('"sizes" must be an object of SHA-256 hashes (lowercase hex) to their content\'s size in bytes.');
  }
  const pathOf = new Map(files.flatMap((file) => (file.hash === null ? [] : [[file.hash, file.path] as const])));
  for (const [hex, size] of Object.entries(sizes as Record<string, unknown>)) {
    const hash = isSha256Hex(hex) ? hexToHash(hex) : undefined;
    const path = hash === undefined ? undefined : pathOf.get(hash);
    if (hash === undefined || path === undefined) throw invalid(`"sizes" names ${JSON.stringify(hex)}, which is the SHA-256 of no file in "files".`);
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
      throw invalid(`The size of ${hex} in "sizes" must be a whole number of bytes.`);
    }
    if (size > limits.maxFileBytes) throw limitExceeded(limits, 'maxFileBytes', `The file ${JSON.stringify(path)} is ${size} bytes; a file may be at most ${limits.maxFileBytes} bytes`);
    declared.set(hash, size);
  }
  return declared;
}

/** `name` as a checked path in NFC, once: two names may differ before NFC and be one path after it. */
function checkedPath(name: string, seen: Set<string>): string {
  const path = checkFilePath(name);
  if (seen.has(path)) throw new Problem('invalid-path', `The file ${JSON.stringify(path)} is listed twice.`);
  seen.add(path);
  return path;
}

/** The manifest `patch` makes of its base's files (`base`, as its index holds them), checked as a whole manifest is. */
export function patchedManifest(base: FileIndex | null, patch: ManifestPatch, limits: DeployLimits): Manifest {
  const files = new Map((base?.files ?? []).map((file) => [file.path, file.hash]));
  for (const [path, hash] of patch.files) {
    if (hash === null) files.delete(path);
    else files.set(path, hash);
  }
  checkSiteSize(limits, files.size, 0);
  checkFilesAndFolders(new Set(files.keys()));
  const merged = Array.from(files, ([path, hash]) => ({ path, hash })).sort(byPath);
  return { files: merged, ...(patch.configuration === undefined ? {} : { configuration: patch.configuration }) };
}

export async function writeManifest(bucket: R2Bucket, key: string, manifest: Manifest): Promise<void> {
  await bucket.put(key, JSON.stringify(manifest), { httpMetadata: { contentType: 'application/json' } });
}

export async function readManifest(bucket: R2Bucket, key: string): Promise<Manifest> {
  const object = await bucket.get(key);
  if (!object) throw new Error(`Manifest ${key} is missing`);
  return object.json<Manifest>();
}
