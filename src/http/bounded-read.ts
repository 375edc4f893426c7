/**
 * A body read whole only up to a byte limit, counted as it streams: a body past the limit is
 * cancelled there, so what a sender says it will send (or never stops sending) is never held.
 */

/** The body went past its limit; it was cancelled there. */
export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
}

/**
 * The bytes of `body`, at most `maxBytes` of them: `BodyTooLarge` past that. When `signal` aborts
 * (a deadline), the read stops and its reason is thrown, whether or not the body is still arriving.
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  // A pending read ends (done) when the reader is cancelled: the abort below then throws.
  const stop = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let size = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Not awaited: a sender still sending must not hold the answer that refuses it.
        void reader.cancel().catch(() => {});
        throw new BodyTooLarge(`more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  } finally {
    signal?.removeEventListener('abort', stop);
    reader.releaseLock();
  }
}
