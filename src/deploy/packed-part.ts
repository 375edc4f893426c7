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
 * Receives one multipart part into `pack`, hashing its bytes as they stream. `check` sees the
 * size so far and each chunk before it is stored, to refuse what goes over a limit; `stored`
 * gets where the whole part lies once it has ended.
 */
export function packedPart(
  pack: PackWriter,
  check: (size: number, chunk: Uint8Array) => void,
  stored: (bytes: PackedBytes) => void,
): PartReceiver {
  const offset = pack.size;
  let size = 0;
  const digest = new crypto.DigestStream('SHA-256');
  const hasher = digest.getWriter();
  return {
    async write(chunk) {
      size += chunk.byteLength;
      check(size, chunk);
      await Promise.all([hasher.write(chunk), pack.append(chunk)]);
    },
    async end() {
      await hasher.close();
      stored({ offset, size, hash: base64url.encode(new Uint8Array(await digest.digest)) });
    },
  };
}
