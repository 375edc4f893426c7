/**
 * What the deploys from a folder learnt, kept between runs so that a redeploy reads only the
 * files that changed and sends only what changed, in one request:
 * - each file's content hash with the identity it had then (size, mtime, ctime, inode), as git's
 *   index keeps them;
 * - for the targets (API origin and domain) deployed from the folder lately, the deployment the
 *   last deploy made there and its files: a redeploy sends its manifest as a patch of that one.
 * Kept in the user's cache folder, per deployed folder: the cache file, written while a deploy
 * runs, and a small file saying which target the listing it holds was deployed to, written once
 * the service answered. Losing either costs a rehash or a whole manifest; a file that is
 * unreadable or of another version is ignored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FileIdentity, LocalFile } from './collect.ts';

const version = 2;
/** Targets remembered per folder, the most recent first. */
const maxTargets = 8;

/** Size, mtime, ctime, inode (decimal strings for the nanoseconds), hash. */
type CachedFile = [number, string, string, string, string];

/** Site paths to their content's SHA-256 (lowercase hex). */
export type SiteFiles = ReadonlyMap<string, string>;

/**
 * How one set of files becomes another, as a JSON merge patch (RFC 7396): a path with a hash
 * adds or replaces it, a path with null removes it.
 */
export type FilesPatch = Record<string, string | null>;

interface CacheFile {
  version: typeof version;
  /** When the files were listed, in nanoseconds since the epoch: see `isRacy`. */
  listedAtNs: string;
  /** Random, new with each listing written: the record of the deploy that sent it names it (see `LastDeploy`). */
  listing: string;
  files: Record<string, CachedFile>;
  /** What the targets held after earlier deploys, most recent first: each one's files as a patch onto the listing's. */
  targets: { target: string; deploymentId: string; patch: FilesPatch }[];
}

/**
 * The last deploy from the folder that succeeded, when it sent the listing the cache file holds:
 * a file of its own, so that the deployment's id, known only from the service's answer, costs a
 * small write at the end instead of rewriting the cache file. The next listing written moves it
 * into the cache file's targets.
 */
interface LastDeploy {
  version: typeof version;
  listing: string;
  target: string;
  deploymentId: string;
}

/** A deployment this folder made on a target, and its files. */
export interface DeployedRecord {
  deploymentId: string;
  files: SiteFiles;
}

/** `$XDG_CACHE_HOME/sitehost`, `%LOCALAPPDATA%\sitehost` on Windows, else `~/.cache/sitehost`. */
export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.cache');
  return join(base, 'sitehost');
}

/** The patch that turns `from` into `to`: the paths `to` holds with another hash, and null for those it lacks. */
export function patchBetween(from: SiteFiles, to: SiteFiles): FilesPatch {
  const changes: [string, string | null][] = [];
  for (const [path, hash] of to) if (from.get(path) !== hash) changes.push([path, hash]);
  for (const path of from.keys()) if (!to.has(path)) changes.push([path, null]);
  // fromEntries defines each path as an own member, "__proto__" too.
  return Object.fromEntries(changes);
}

function patched(files: SiteFiles, patch: FilesPatch): SiteFiles {
  const result = new Map(files);
  for (const [path, hash] of Object.entries(patch)) {
    if (hash === null) result.delete(path);
    else result.set(path, hash);
  }
  return result;
}

/**
 * Whether a file changed within the timestamp granularity of the listing that recorded it: then a
 * later change may leave its identity as it was, and its recorded hash cannot be trusted (git calls
 * such entries "racily clean"). File systems that keep whole seconds may round by two; finer
 * ones stamp files from a clock that lags by a scheduler tick (a few milliseconds).
 */
function isRacy(identity: FileIdentity, listedAtNs: bigint): boolean {
  const coarse = identity.ctimeNs % 1_000_000_000n === 0n && identity.mtimeNs % 1_000_000_000n === 0n;
  const marginNs = coarse ? 2_000_000_000n : 50_000_000n;
  return identity.ctimeNs + marginNs > listedAtNs || identity.mtimeNs + marginNs > listedAtNs;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    // None yet, or unreadable.
    return undefined;
  }
}

function isCacheFile(value: Record<string, unknown> | undefined): value is Record<string, unknown> & CacheFile {
  return (
    value?.version === version &&
    typeof value.listedAtNs === 'string' &&
    typeof value.listing === 'string' &&
    isObject(value.files) &&
    Array.isArray(value.targets) &&
    value.targets.every((entry) => isObject(entry) && typeof entry.target === 'string' && typeof entry.deploymentId === 'string' && isObject(entry.patch))
  );
}

function isLastDeploy(value: Record<string, unknown> | undefined): value is Record<string, unknown> & LastDeploy {
  return value?.version === version && typeof value.listing === 'string' && typeof value.target === 'string' && typeof value.deploymentId === 'string';
}

/** Replaces the file at `path` whole: a reader sees the old content or the new, never a part. */
async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

export class HashCache {
  readonly #path: string | undefined;
  readonly #recorded: CacheFile | undefined;
  /** The last deploy, when it sent the recorded listing. */
  readonly #last: LastDeploy | undefined;
  /** The recorded listing's time, parsed once: `hashOf` compares every file with it. */
  #listedAtNs: bigint | undefined;
  /** Files whose recorded hash could not be used. */
  #misses = 0;
  /** The recorded listing's files, by path. */
  #listingFiles: SiteFiles | undefined;
  /** The listing the cache file holds since `save`, which a deploy of these files names; none when it could not be written. */
  #saved: string | undefined;

  private constructor(path: string | undefined, recorded: CacheFile | undefined, last: LastDeploy | undefined) {
    this.#path = path;
    this.#recorded = recorded;
    this.#last = last;
  }

  /** The cache of the folder whose real path is `root`; `enabled: false` reads and keeps nothing. */
  static async open(root: string, enabled: boolean, env: NodeJS.ProcessEnv = process.env): Promise<HashCache> {
    if (!enabled) return new HashCache(undefined, undefined, undefined);
    const path = join(cacheFolder(env), 'folders', `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`);
    const [recorded, last] = await Promise.all([readJson(path), readJson(lastDeployPath(path))]);
    if (!isCacheFile(recorded)) return new HashCache(path, undefined, undefined);
    return new HashCache(path, recorded, isLastDeploy(last) && last.listing === recorded.listing ? last : undefined);
  }

  /** The recorded hash of `file`, when its identity is the one recorded with it and was not racy. */
  hashOf(file: LocalFile): string | undefined {
    const files = this.#recorded?.files;
    // Own members only: a file named "constructor" is not Object's.
    const cached = files && Object.hasOwn(files, file.path) ? files[file.path] : undefined;
    const { identity } = file;
    if (cached && !isRacy(identity, (this.#listedAtNs ??= BigInt(this.#recorded!.listedAtNs)))) {
      const [size, mtimeNs, ctimeNs, ino, hash] = cached;
      if (size === identity.size && mtimeNs === String(identity.mtimeNs) && ctimeNs === String(identity.ctimeNs) && ino === String(identity.ino)) return hash;
    }
    this.#misses += 1;
    return undefined;
  }

  /** The deployment the last successful deploy from this folder to `target` made, and its files, if remembered. */
  deployedTo(target: string): DeployedRecord | undefined {
    const recorded = this.#recorded;
    if (!recorded) return undefined;
    if (this.#last?.target === target) return { deploymentId: this.#last.deploymentId, files: this.#listing() };
    const found = recorded.targets.find((entry) => entry.target === target);
    return found && { deploymentId: found.deploymentId, files: patched(this.#listing(), found.patch) };
  }

  #listing(): SiteFiles {
    this.#listingFiles ??= new Map(Object.entries(this.#recorded?.files ?? {}).map(([path, cached]) => [path, cached[4]]));
    return this.#listingFiles;
  }

  /** Every target's record, the most recent first. */
  #records(): ({ target: string } & DeployedRecord)[] {
    const recorded = this.#recorded;
    if (!recorded) return [];
    const last = this.#last ? [{ target: this.#last.target, deploymentId: this.#last.deploymentId, files: this.#listing() }] : [];
    const older = recorded.targets
      .filter((entry) => entry.target !== this.#last?.target)
      .map((entry) => ({ target: entry.target, deploymentId: entry.deploymentId, files: patched(this.#listing(), entry.patch) }));
    return [...last, ...older];
  }

  /**
   * Records the hashes of `files`, listed at `listedAtNs`, as the listing that a deploy to
   * `target` is about to send. What the targets held stays as it was: `deployed` records the
   * deploy's deployment once it succeeded. A cache that cannot be written is only a slower next
   * deploy.
   */
  async save(files: readonly (LocalFile & { hash: string })[], listedAtNs: bigint, target?: string): Promise<void> {
    if (!this.#path) return;
    if (this.#holds(files, target)) {
      this.#saved = this.#recorded!.listing;
      return;
    }
    const listing = randomBytes(8).toString('hex');
    const hashes = new Map(files.map((file) => [file.path, file.hash]));
    // The target deployed to first: its record is the one to keep should the deploy fail.
    const records = this.#records().sort((a, b) => Number(b.target === target) - Number(a.target === target));
    const cache: CacheFile = {
      version,
      listedAtNs: String(listedAtNs),
      listing,
      files: Object.fromEntries(
        files.map(({ path, hash, identity }) => [path, [identity.size, String(identity.mtimeNs), String(identity.ctimeNs), String(identity.ino), hash]]),
      ),
      targets: records.slice(0, maxTargets).map((record) => ({ target: record.target, deploymentId: record.deploymentId, patch: patchBetween(hashes, record.files) })),
    };
    try {
      await mkdir(join(this.#path, '..'), { recursive: true });
      await replaceFile(this.#path, JSON.stringify(cache));
      this.#saved = listing;
    } catch {
      // Only speed is lost.
      this.#saved = undefined;
    }
  }

  /**
   * Records that `target` now holds the deployment `deploymentId`, made of the files `save`
   * recorded (call it once `save` has ended): a small write, however many files.
   */
  async deployed(target: string, deploymentId: string): Promise<void> {
    if (!this.#path || this.#saved === undefined) return;
    const last: LastDeploy = { version, listing: this.#saved, target, deploymentId };
    try {
      await replaceFile(lastDeployPath(this.#path), JSON.stringify(last));
    } catch {
      // The next deploy sends its whole manifest.
    }
  }

  /**
   * Whether the cache file says all that `save` would: every file's hash was recorded, and no
   * other target's record lives only in the last deploy's file, which this deploy's replaces.
   */
  #holds(files: readonly LocalFile[], target: string | undefined): boolean {
    const recorded = this.#recorded;
    if (!recorded || this.#misses > 0 || files.length !== Object.keys(recorded.files).length) return false;
    return this.#last === undefined || this.#last.target === target;
  }
}

function lastDeployPath(cachePath: string): string {
  return cachePath.replace(/\.json$/, '.deployed.json');
}
