/**
 * `POST /v2/oidc/github`'s body limit, in the runtime itself: an ID token of several MB is refused
 * with 413 having read at most a little past the limit. test/node/github-oidc.test.ts sends an
 * oversized token to the running service too; there the body stays within what loopback buffers
 * hold, since a local proxy in front of workerd may not pass on an answer while a body is still
 * being pushed at it.
 */
import { describe, expect, it } from 'vitest';
import { call, problemOf } from '../support/client';

/** A JSON body `{"token":"eee…"}` of `bytes` bytes, made only as it is read; `pulled` counts what was read. */
function hugeExchange(bytes: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new TextEncoder().encode('e'.repeat(64 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) {
        controller.enqueue(new TextEncoder().encode('{"token":"'));
      } else if (sent >= bytes) {
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
  return { body, pulled: () => sent };
}

describe('POST /v2/oidc/github, a body past its limit', () => {
  it('refuses an ID token of several MB with 413 naming the limit, having read little of it', async () => {
    const { body, pulled } = hugeExchange(5 * 1024 * 1024);
    const response = await call('/v2/oidc/github', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    const problem = await problemOf(response);
    expect(problem).toMatchObject({ type: '/problems/payload-too-large', limit: 'MAX_EXCHANGE_BYTES', value: 16384 });
    expect(pulled()).toBeLessThan(1024 * 1024);
  });
});
