import { env } from 'cloudflare:workers';
import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { type PackedBytes, packedPart } from '../../src/deploy/packed-part';
import { PackWriter } from '../../src/storage/pack-writer';

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

async function sha256(content: Uint8Array): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', content)));
}

describe('packedPart', () => {
  it('hashes each part whole, whether the pack part buffer still holds it at its end or not', async () => {
    // Parts of 64 bytes, written in chunks of `chunkSize` from one reused buffer, as the multipart reader does.
    const pack = new PackWriter(env.FILES, 'test/packed-part-hashes', 64);
    const cases: [string, number, number][] = [
      ['within the first part buffer', 20, 10],
      ['ending exactly where the buffer ends', 44, 10],
      ['empty', 0, 10],
      ['starting a buffer, spanning several', 150, 10],
      ['within a later buffer', 30, 7],
      ['from the middle to the end of a buffer in one chunk', 12, 12],
      ['starting a buffer with a chunk larger than it', 70, 70],
      ['crossing a boundary', 70, 9],
    ];
    const scratch = new Uint8Array(70);
    let offset = 0;
    for (const [what, size, chunkSize] of cases) {
      const content = bytes(size, size);
      let stored: PackedBytes | undefined;
      const part = packedPart(pack, () => {}, (bytes) => {
        stored = bytes;
      });
      for (let at = 0; at < size; at += chunkSize) {
        const chunk = content.subarray(at, at + chunkSize);
        scratch.set(chunk);
        await part.write(scratch.subarray(0, chunk.byteLength));
        scratch.fill(0);
      }
      await part.end();
      expect([what, stored]).toEqual([what, { offset, size, hash: await sha256(content) }]);
      offset += size;
    }
    await pack.abort();
  });
});
