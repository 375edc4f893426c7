/**
 * An event stream that ends once its reader may no longer read it: its credential revoked, its
 * user signed out everywhere or suspended, or (a site's stream) its access to the site gone. The
 * stream asks again whether its reader may read at a delivery whose last answer is
 * API_TOKEN_CHECK_SECONDS old, and on a timer of that period whether anything is delivered or
 * not, so however long a stream stays open, quiet or busy, it ends within that bound of the
 * reader losing it, delivering nothing past it. Server-Sent Events end (an EventSource
 * reconnects, and is refused); a WebSocket is closed with 1008 (policy violation), relayed
 * through the Worker, which is what it costs a reader whose access can change.
 */

/** Whether the reader may still read; any failure to learn it counts as no: the client reconnects and is answered anew. */
export type ReadCheck = () => Promise<boolean>;

/** The timer's period when checks are due at every delivery (API_TOKEN_CHECK_SECONDS=0): a quiet stream still ends. */
const quietCheckMs = 1000;

/** Asks `stillReads` at most every `everyMs` at deliveries and at least that often on a timer; calls `end` once it says no. */
class Guard {
  #checkedAt = Date.now();
  #answer: Promise<boolean> = Promise.resolve(true);
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly stillReads: ReadCheck,
    private readonly everyMs: number,
    private readonly end: () => void,
  ) {
    this.#timer = setInterval(() => void this.allowed(), Math.max(everyMs, quietCheckMs));
  }

  /** The last answer while it is young enough, else a new one (one at a time). */
  allowed(): Promise<boolean> {
    if (Date.now() - this.#checkedAt >= this.everyMs) {
      this.#checkedAt = Date.now();
      this.#answer = this.#answer.then(async (reads) => {
        if (!reads) return false;
        const still = await this.stillReads().catch(() => false);
        if (!still) this.stop();
        return still;
      });
    }
    return this.#answer;
  }

  /** Stops checking and ends the stream. */
  stop(): void {
    this.dispose();
    this.end();
  }

  /** Stops checking: the stream ended otherwise. */
  dispose(): void {
    clearInterval(this.#timer);
  }
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

/** A message to a socket the client may have closed meanwhile: a closed socket takes nothing, and no relay fails for it. */
function sendQuietly(socket: WebSocket, data: string | ArrayBuffer): void {
  try {
    socket.send(data);
  } catch {
    // Closed already: its close event ends the relay.
  }
}

/** Relays `upstream`'s messages to the client in order, each once the check allows it; closes both when it does not. */
function relaySocket(upstream: WebSocket, stillReads: ReadCheck, everyMs: number): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  upstream.accept();
  server.accept();
  const guard = new Guard(stillReads, everyMs, () => {
    closeQuietly(server, 1008, 'You may no longer read these events.');
    closeQuietly(upstream, 1000, 'Its reader may no longer read these events.');
  });
  let delivered = Promise.resolve();
  upstream.addEventListener('message', (message) => {
    delivered = delivered.then(async () => {
      if (await guard.allowed()) sendQuietly(server, message.data);
    });
  });
  const closeToo = (socket: WebSocket) => (event: CloseEvent) => {
    guard.dispose();
    closeQuietly(socket, sendableCode(event.code), event.reason);
  };
  upstream.addEventListener('close', closeToo(server));
  server.addEventListener('close', closeToo(upstream));
  return new Response(null, { status: 101, webSocket: client });
}

/** `body` passed on chunk by chunk while the guard allows; ended (and its source cancelled) once it does not. */
function guardedBody(body: ReadableStream<Uint8Array>, stillReads: ReadCheck, everyMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  let guard: Guard;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        guard = new Guard(stillReads, everyMs, () => {
          if (ended) return;
          ended = true;
          controller.close();
          void reader.cancel().catch(() => {});
        });
      },
      async pull(controller) {
        const chunk = await reader.read();
        if (ended) return;
        if (chunk.done) {
          ended = true;
          guard.dispose();
          return controller.close();
        }
        if (await guard.allowed()) controller.enqueue(chunk.value);
      },
      cancel(reason) {
        ended = true;
        guard.dispose();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** `response` (a stream of events) as it goes on only while `stillReads` says so, asked every `everyMs`. */
export function whileReadable(response: Response, stillReads: ReadCheck, everyMs: number): Response {
  if (response.webSocket) return relaySocket(response.webSocket, stillReads, everyMs);
  if (!response.body) return response;
  return new Response(guardedBody(response.body, stillReads, everyMs), response);
}
