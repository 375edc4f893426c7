/**
 * What the deploys from a folder learnt, kept between runs so that a redeploy reads only the
 * files that changed and sends what the service lacks in one request:
 * - each file's content hash with the identity it had then (size, mtime, ctime, inode), as git's
 *   index keeps them;
 * - for the targets (API origin and domain) deployed from the folder lately, the hashes the
 *   deployment held.
 * Kept in the user's cache folder, one file per deployed folder. Losing it costs a rehash; a file
 * that is unreadable or of another version is ignored.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FileIdentity, LocalFile } from './collect.ts';

const version = 1;
/** Targets remembered per folder, the most recent first. */
const maxTargets = 8;

/** Size, mtime, ctime, inode (decimal strings for the nanoseconds), hash. */
type CachedFile = [number, string, string, string, string];

interface CacheFile {
  version: typeof version;
  /** When the files were listed, in nanoseconds since the epoch: see `isRacy`. */
  listedAtNs: string;
  files: Record<string, CachedFile>;
  targets: { target: string; hashes: string[] }[];
}

/** `$XDG_CACHE_HOME/sitehost`, `%LOCALAPPDATA%\sitehost` on Windows, else `~/.cache/sitehost`. */
export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.cache');
  return join(base, 'sitehost');
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

export class HashCache {
  readonly #path: string | undefined;
  readonly #recorded: CacheFile | undefined;
  /** Files whose recorded hash could not be used. */
  #misses = 0;

  private constructor(path: string | undefined, recorded: CacheFile | undefined) {
    this.#path = path;
    this.#recorded = recorded;
  }

  /** The cache of the folder whose real path is `root`; `enabled: false` reads and keeps nothing. */
  static async open(root: string, enabled: boolean, env: NodeJS.ProcessEnv = process.env): Promise<HashCache> {
    if (!enabled) return new HashCache(undefined, undefined);
    const path = join(cacheFolder(env), 'folders', `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`);
    let recorded: Partial<CacheFile> | undefined;
    try {
      recorded = JSON.parse(await readFile(path, 'utf8')) as Partial<CacheFile>;
    } catch {
      // None yet, or unreadable: every file is hashed.
    }
    const usable = recorded?.version === version && typeof recorded.files === 'object' && Array.isArray(recorded.targets);
    return new HashCache(path, usable ? (recorded as CacheFile) : undefined);
  }

  /** The recorded hash of `file`, when its identity is the one recorded with it and was not racy. */
  hashOf(file: LocalFile): string | undefined {
    const cached = this.#recorded?.files[file.path];
    const { identity } = file;
    if (cached && !isRacy(identity, BigInt(this.#recorded!.listedAtNs))) {
      const [size, mtimeNs, ctimeNs, ino, hash] = cached;
      if (size === identity.size && mtimeNs === String(identity.mtimeNs) && ctimeNs === String(identity.ctimeNs) && ino === String(identity.ino)) return hash;
    }
    this.#misses += 1;
    return undefined;
  }

  /** The hashes of the last deployment made from this folder to `target`, if one is remembered. */
  deployedTo(target: string): ReadonlySet<string> | undefined {
    const found = this.#recorded?.targets.find((entry) => entry.target === target);
    return found && new Set(found.hashes);
  }

  /**
   * Records the hashes of `files`, listed at `listedAtNs`, and with `deployed` what a deployment
   * to its target now holds. A cache that cannot be written is only a slower next deploy.
   */
  async save(files: readonly (LocalFile & { hash: string })[], listedAtNs: bigint, deployed?: { target: string; hashes: string[] }): Promise<void> {
    if (!this.#path || this.#holds(files, deployed)) return;
    const others = (this.#recorded?.targets ?? []).filter((entry) => entry.target !== deployed?.target);
    const cache: CacheFile = {
      version,
      listedAtNs: String(listedAtNs),
      files: Object.fromEntries(
        files.map(({ path, hash, identity }) => [path, [identity.size, String(identity.mtimeNs), String(identity.ctimeNs), String(identity.ino), hash]]),
      ),
      targets: [...(deployed ? [deployed] : []), ...others].slice(0, maxTargets),
    };
    const temporary = `${this.#path}.${process.pid}.tmp`;
    try {
      await mkdir(join(this.#path, '..'), { recursive: true });
      await writeFile(temporary, JSON.stringify(cache));
      await rename(temporary, this.#path);
    } catch {
      // Only speed is lost.
    }
  }

  /** Whether the record says all that `save` would: every file's hash was recorded, and `deployed` is the newest target, as it was. */
  #holds(files: readonly LocalFile[], deployed?: { target: string; hashes: string[] }): boolean {
    const recorded = this.#recorded;
    if (!recorded || this.#misses > 0 || files.length !== Object.keys(recorded.files).length) return false;
    if (!deployed) return true;
    const newest = recorded.targets[0];
    return newest?.target === deployed.target && newest.hashes.length === deployed.hashes.length && newest.hashes.every((hash, index) => hash === deployed.hashes[index]);
  }
}
