import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, apiErrorOf } from './received-problem.ts';

export type { EventSourceMessage };

/** Sends `GET /v2/events` with these headers (plus the caller's credentials); resolves to the answer, whatever its status. */
export type OpenEventStream = (headers: Record<string, string>, signal: AbortSignal | undefined) => Promise<Response>;

export interface FollowOptions {
  /** Resume after this event (sent as `Last-Event-ID`; `0`: from the oldest event kept). */
  lastEventId?: string;
  /** Ends the following. */
  signal?: AbortSignal;
  /** Told when a connection is open and events flow. */
  onOpen?(): void;
  /** Told before each reconnection, with the reason and the delay. */
  onReconnect?(reason: string, delayMs: number): void;
  /** Told when the events after `lastEventId` are no longer kept; following resumes from the oldest one kept. */
  onGap?(reason: string): void;
}

const defaultRetryMs = 3000;
const maxRetryMs = 30_000;
/** `Last-Event-ID: 0` asks for every event the service still keeps. */
const oldestKept = '0';

/** Answers worth asking again: the service is busy, failing or restarting (501: it never will answer). */
function isTransient(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Follows `GET /v2/events` (Server-Sent Events) for as long as the caller iterates and `signal`
 * allows. A dropped connection, a failed one or a server error is retried with `Last-Event-ID`,
 * so no event is missed or repeated, after the server's `retry` time, doubled per failed
 * attempt up to 30 s. When the service no longer has the events after that id (410 Gone), the
 * caller is told of the gap and following resumes from the oldest event kept. Other refusals
 * (401, 403, 404, 501) end the iteration with their ApiError.
 */
export async function* followEvents(open: OpenEventStream, options: FollowOptions = {}): AsyncGenerator<EventSourceMessage> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let retryMs = defaultRetryMs;
  let failures = 0;
  while (!signal?.aborted) {
    let reason: string;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await open(headers, signal);
      if (!response.ok) throw await apiErrorOf(response);
      if (!response.body) throw new TypeError('The event stream has no body.');
      options.onOpen?.();
      // A reader rather than async iteration of the stream, which not every browser has.
      const reader = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (retryMs = ms) }))
        .getReader();
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          failures = 0;
          if (read.value.id !== undefined) lastEventId = read.value.id;
          yield read.value;
        }
      } finally {
        reader.cancel().catch(() => {});
      }
      reason = 'the server closed the stream';
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError) {
        if (error.status === 410 && lastEventId && lastEventId !== oldestKept) {
          options.onGap?.(error.message);
          lastEventId = oldestKept;
          continue;
        }
        if (!isTransient(error.status)) throw error;
      }
      reason = error instanceof Error ? error.message : String(error);
      failures += 1;
    }
    const delayMs = Math.min(retryMs * 2 ** Math.max(failures - 1, 0), maxRetryMs);
    options.onReconnect?.(reason, delayMs);
    await sleep(delayMs, signal);
  }
}
