import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from './api.ts';
import { CliError } from './errors.ts';

export interface FollowOptions {
  /** Resume after this event (sent as `Last-Event-ID`). */
  lastEventId?: string;
  /** Told before each reconnection, with the reason and the delay. */
  onReconnect(reason: string, delayMs: number): void;
  /** Told when the events after `lastEventId` are no longer retained; following goes on live. */
  onGap(reason: string): void;
}

const defaultRetryMs = 3000;
const maxRetryMs = 30_000;

function isTransient(error: unknown): boolean {
  if (error instanceof CliError) return error.kind === 'server';
  // undici reports a connection dropped in the middle of a body as a TypeError ("terminated").
  return error instanceof TypeError;
}

/**
 * Follows `GET /v2/events` (Server-Sent Events) for as long as the caller iterates: on a
 * dropped connection or a server error it reconnects with `Last-Event-ID`, so no event is
 * missed or repeated; it waits the server's `retry` time, doubled per failed attempt.
 * When the server no longer has the events after that id (410 Gone), following goes on
 * with live events. Other refusals (401, 403, 404) end the iteration with their error.
 */
export async function* followEvents(api: ApiClient, options: FollowOptions): AsyncGenerator<EventSourceMessage> {
  let lastEventId = options.lastEventId;
  let retryMs = defaultRetryMs;
  let failures = 0;
  for (;;) {
    let reason: string;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await api.fetch('/v2/events', { headers });
      if (!response.body) throw new CliError('server', 'The event stream has no body.');
      const messages = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (retryMs = ms) }));
      for await (const message of messages) {
        failures = 0;
        if (message.id !== undefined) lastEventId = message.id;
        yield message;
      }
      reason = 'the server closed the stream';
    } catch (error) {
      if (error instanceof CliError && error.status === 410 && lastEventId) {
        options.onGap(error.message);
        lastEventId = undefined;
        continue;
      }
      if (!isTransient(error)) throw error;
      reason = error instanceof Error ? error.message : String(error);
      failures += 1;
    }
    const delayMs = Math.min(retryMs * 2 ** Math.max(failures - 1, 0), maxRetryMs);
    options.onReconnect(reason, delayMs);
    await sleep(delayMs);
  }
}
