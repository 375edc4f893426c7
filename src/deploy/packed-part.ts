import { base64url } from 'jose';
import type { PackWriter } from '../storage/pack-writer';
import type { PartReceiver } from './multipart-reader';

/** Where a part's bytes were stored, and their SHA-256 (base64url, the file's strong ETag). */
export interface PackedBytes {
  offset: number;
  size: number;
  hash: string;
}

/**
 * Receives one multipart part into `pack` and hashes it. `check` sees the size so far and each
 * chunk before it is stored, to refuse what goes over a limit; `stored` gets where the whole part
 * lies once it has ended (and may drop it from the pack, see PackWriter.dropSince).
 *
 * A part is hashed at its end, in one call, from the pack's part buffer, which holds it whole
 * unless an append of it filled that buffer and uploaded it: from that chunk on (in every part
 * larger than a pack part, and the few that cross a part boundary), it is hashed as it streams.
 * Most files are far smaller than a pack part, and a DigestStream for each cost as much as
 * hashing their bytes.
 */
export function packedPart(
  pack: PackWriter,
  check: (size: number, chunk: Uint8Array) => void,
  stored: (bytes: PackedBytes) => void | Promise<void>,
): PartReceiver {
  const offset = pack.size;
  let size = 0;
  let streamed: StreamedHash | undefined;
  return {
    async write(chunk) {
      size += chunk.byteLength;
      check(size, chunk);
      if (!streamed && chunk.byteLength >= pack.room) streamed = await streamedHash(pack.heldSince(offset)!);
      await (streamed ? Promise.all([streamed.write(chunk), pack.append(chunk)]) : pack.append(chunk));
    },
    async end() {
      const digest = streamed ? await streamed.digest() : await crypto.subtle.digest('SHA-256', pack.heldSince(offset)!);
      await stored({ offset, size, hash: base64url.encode(new Uint8Array(digest)) });
    },
  };
}

interface StreamedHash {
  write(chunk: Uint8Array): Promise<void>;
  digest(): Promise<ArrayBuffer>;
}

/** A SHA-256 of bytes written as they stream, `first` first: written once this resolves, so its buffer may change. */
async function streamedHash(first: Uint8Array): Promise<StreamedHash> {
  const stream = new crypto.DigestStream('SHA-256');
  const writer = stream.getWriter();
  await writer.write(first);
  return {
    write: (chunk) => writer.write(chunk),
    async digest() {
      await writer.close();
      return stream.digest;
    },
  };
}
