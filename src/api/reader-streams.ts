/**
 * A site's event stream that ends once its reader may no longer read the site (a member removed,
 * the site unpublished and claimed by another): as it delivers, it asks again whether the reader
 * may read whenever its last answer is API_TOKEN_CHECK_SECONDS old, so however long a stream stays
 * open, its reader receives nothing past that bound after losing access. Server-Sent Events end
 * (an EventSource reconnects, and is refused); a WebSocket is closed with 1008 (policy violation),
 * relayed through the Worker, which is what it costs a reader whose access can change.
 */

/** Whether the reader may still read; any failure to learn it counts as no: the client reconnects and is answered anew. */
export type ReadCheck = () => Promise<boolean>;

/** The check, asked again only once its last answer is `everyMs` old. */
function throttled(stillReads: ReadCheck, everyMs: number): ReadCheck {
  let checkedAt = Date.now();
  let reads = true;
  return async () => {
    if (!reads || Date.now() - checkedAt < everyMs) return reads;
    reads = await stillReads().catch(() => false);
    checkedAt = Date.now();
    return reads;
  };
}

/** WebSocket close codes a program may send: 1000, and 3000 to 4999 (RFC 6455, 7.4). */
function sendableCode(code: number): number {
  return code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000;
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Closed already: nothing to tell it.
  }
}

/** Relays `upstream`'s messages to the client in order, each once the check allows it; closes both when it does not. */
function relaySocket(upstream: WebSocket, allowed: ReadCheck): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  upstream.accept();
  server.accept();
  let delivered = Promise.resolve();
  upstream.addEventListener('message', (message) => {
    delivered = delivered.then(async () => {
      if (await allowed()) return server.send(message.data);
      closeQuietly(server, 1008, 'You may no longer read this site.');
      closeQuietly(upstream, 1000, 'Its reader may no longer read the site.');
    });
  });
  upstream.addEventListener('close', (event) => closeQuietly(server, sendableCode(event.code), event.reason));
  server.addEventListener('close', (event) => closeQuietly(upstream, sendableCode(event.code), event.reason));
  return new Response(null, { status: 101, webSocket: client });
}

/** `response` (a stream of a site's events) as it goes on only while `stillReads` says so, asked at most every `everyMs`. */
export function whileReadable(response: Response, stillReads: ReadCheck, everyMs: number): Response {
  const allowed = throttled(stillReads, everyMs);
  if (response.webSocket) return relaySocket(response.webSocket, allowed);
  if (!response.body) return response;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (await allowed()) controller.enqueue(chunk);
        else controller.terminate();
      },
    }),
  );
  return new Response(body, response);
}
