import { describe, expect, it } from 'vitest';
import { batchesOf, type DeployTransport, filesToSend, type HashedFile, sendMissing, sha256Hex } from '../../src/common/incremental-deploy';

const file = (path: string, size: number, hash = path): HashedFile => ({ path, size, hash });

describe('incremental deploys, client side', () => {
  it('hashes with WebCrypto as SHA-256 hex', async () => {
    expect(await sha256Hex(new TextEncoder().encode('abc').buffer as ArrayBuffer)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('sends one file per missing hash, and nothing the service has', () => {
    const files = [file('a.html', 1, 'x'), file('copy-of-a.html', 1, 'x'), file('b.css', 2, 'y'), file('c.js', 3, 'z')];
    expect(filesToSend(files, ['x', 'z']).map((f) => f.path)).toEqual(['a.html', 'c.js']);
    expect(filesToSend(files, [])).toEqual([]);
  });

  it('cuts batches at the byte and part limits, a larger file alone', () => {
    const files = [file('a', 4), file('b', 4), file('c', 10), file('d', 1), file('e', 1), file('f', 1)];
    expect(batchesOf(files, { bytes: 8, files: 2 }).map((batch) => batch.map((f) => f.path))).toEqual([['a', 'b'], ['c'], ['d', 'e'], ['f']]);
  });

  it('after a lost connection, asks what is missing and sends only that', async () => {
    const stored = new Set<string>();
    const all = ['a', 'b', 'c', 'd'].map((name) => file(name, 1));
    const sent: string[][] = [];
    let dropped = false;
    const transport: DeployTransport<HashedFile> = {
      async sendBlobs(_id, batch) {
        sent.push(batch.map((f) => f.path));
        // The first request's first part is stored, then the connection drops.
        stored.add(batch[0]!.hash);
        if (!dropped) {
          dropped = true;
          throw new Error('connection lost');
        }
        for (const f of batch) stored.add(f.hash);
        return { id: 'd1', missing: all.filter((f) => !stored.has(f.hash)).map((f) => f.hash) };
      },
      deployment: async () => ({ id: 'd1', missing: all.filter((f) => !stored.has(f.hash)).map((f) => f.hash) }),
      isTransient: (error) => error instanceof Error && error.message === 'connection lost',
    };
    await sendMissing('d1', all, transport, { bytes: 2, files: 2 });
    expect(sent).toEqual([['a', 'b'], ['b', 'c'], ['d']]);
    expect([...stored].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives up on a failure that asking again cannot cure', async () => {
    const refused = new Error('413');
    const transport: DeployTransport<HashedFile> = {
      sendBlobs: async () => Promise.reject(refused),
      deployment: async () => ({ id: 'd1', missing: ['a'] }),
      isTransient: () => false,
    };
    await expect(sendMissing('d1', [file('a', 1)], transport)).rejects.toBe(refused);
  });
});
