/**
 * The blob parts of an incremental deploy's request (`PUT .../blobs`, or the parts after the
 * manifest in one `POST .../deployments`): each named by its SHA-256 (hex), one of the manifest's,
 * streamed into the request's pack and verified against its name.
 *
 * Bytes are stored once: a part whose content the site stores already, or that this request
 * brought already, is read and not written (the repeated part of a hostile client stores nothing),
 * and one found stored only once it has arrived is dropped from the pack while the pack still
 * holds it. So what a request writes is bounded by the deployment's size (MAX_TOTAL_BYTES); the
 * request's blob parts together, written or not, by MAX_TOTAL_BYTES too; the coordinator counts
 * every pack a deployment keeps against it (SiteCoordinator.addBlobs).
 */
import { Problem } from '../http/problem';
import { checkFileSize, checkSiteSize } from '../content/file-rules';
import { type DeployLimits, limitExceeded } from '../content/deploy-limits';
import { type ManifestFile, hexToHash, isSha256Hex } from '../content/manifest';
import type { StorageRoom } from '../quotas/admission';
import type { BlobLocation } from '../storage/deployments-table';
import type { PackWriter } from '../storage/pack-writer';
import type { PartHeader, PartReceiver } from './multipart-reader';
import { packedPart } from './packed-part';

/**
 * Bytes of the manifest's files whose content is stored, counting a hash once per path that holds
 * it; with `declared`, the sizes the client declares of the rest too.
 */
export function knownBytes(files: readonly ManifestFile[], known: ReadonlyMap<string, BlobLocation>, declared: ReadonlyMap<string, number> = new Map()): number {
  return files.reduce((sum, file) => sum + (known.get(file.hash)?.size ?? declared.get(file.hash) ?? 0), 0);
}

/** What a request's blob parts are received with. */
export interface BlobReceiving {
  /** The manifest's (or the patch's) files: a blob must be the content of one. */
  files: readonly ManifestFile[];
  limits: DeployLimits;
  pack: PackWriter;
  /** Filled with the blobs stored whole and verified. */
  received: BlobLocation[];
  /** Where the site stores content already, when the request knows it before its blobs. */
  known?: ReadonlyMap<string, BlobLocation>;
  /** Where the site stores content, asked while the blobs stream in. */
  stored?: Promise<ReadonlyMap<string, BlobLocation>>;
  /** What the user may still store. */
  room?: StorageRoom;
}

/** The request's running sums. */
interface Budget {
  /** The deployment's bytes so far, against MAX_TOTAL_BYTES. */
  totalBytes: number;
  /** The hashes already in `totalBytes`, or brought by this request: a part of one is not stored. */
  counted: Set<string>;
  /** Every blob part's bytes, stored or not, against MAX_TOTAL_BYTES. */
  requestBytes: number;
  /** `stored`, once it has answered. */
  storedNow?: ReadonlyMap<string, BlobLocation>;
}

/**
 * Receives a request's blob parts into `pack`, listing in `received` those stored whole and
 * verified. The deployment's bytes are counted against MAX_TOTAL_BYTES with what the site stores
 * already (`known`, when the request knows it yet).
 */
export function blobParts(receiving: BlobReceiving): (part: PartHeader) => PartReceiver {
  const { files, known = new Map(), stored } = receiving;
  const uses = new Map<string, number>();
  for (const file of files) uses.set(file.hash, (uses.get(file.hash) ?? 0) + 1);
  const budget: Budget = { totalBytes: knownBytes(files, known), counted: new Set(known.keys()), requestBytes: 0 };
  stored?.then((answer) => (budget.storedNow = answer)).catch(() => {});
  return (part) => blobReceiver(part, uses, receiving, budget);
}

function blobReceiver(part: PartHeader, uses: ReadonlyMap<string, number>, receiving: BlobReceiving, budget: Budget): PartReceiver {
  if (part.name !== 'blob') throw new Problem('invalid-request', `Unknown field ${JSON.stringify(part.name)}: blobs are sent as "blob" fields.`);
  const name = part.filename ?? '';
  if (!isSha256Hex(name)) throw new Problem('invalid-request', `A blob's filename is its SHA-256 in lowercase hex, not ${JSON.stringify(name)}.`);
  const hash = hexToHash(name);
  const count = uses.get(hash);
  if (count === undefined) throw new Problem('invalid-request', `The blob ${name} is no file of this deployment's manifest.`);
  const { limits, pack, received, stored, room } = receiving;
  if (budget.counted.has(hash) || budget.storedNow?.has(hash)) return notStored(limits, budget);
  // A hash new to the site counts once for each path that holds it.
  budget.counted.add(hash);
  return packedPart(
    pack,
    (size, chunk) => {
      checkFileSize(limits, size);
      countRequestBytes(limits, budget, chunk);
      budget.totalBytes += chunk.byteLength * count;
      checkSiteSize(limits, 0, budget.totalBytes);
    },
    async ({ offset, size, hash: actual }) => {
      if (actual !== hash) {
        throw new Problem('invalid-request', `The bytes of the blob ${name} do not hash to its name; it was not stored.`);
      }
      if (size === 0) return;
      // Stored already, though the request did not know it when the part began: the site's copy serves.
      if ((await stored)?.has(hash) && pack.dropSince(offset)) return;
      room?.check(pack.size);
      received.push({ hash, pack: pack.key, offset, size });
    },
  );
}

/** A part whose content is stored already, or came earlier in the request: read, counted, and not written. */
function notStored(limits: DeployLimits, budget: Budget): PartReceiver {
  let size = 0;
  return {
    async write(chunk) {
      size += chunk.byteLength;
      checkFileSize(limits, size);
      countRequestBytes(limits, budget, chunk);
    },
    async end() {},
  };
}

function countRequestBytes(limits: DeployLimits, budget: Budget, chunk: Uint8Array): void {
  budget.requestBytes += chunk.byteLength;
  if (budget.requestBytes > limits.maxTotalBytes) {
    throw limitExceeded(limits, 'maxTotalBytes', `A request's blob parts may add up to at most ${limits.maxTotalBytes} bytes`);
  }
}
