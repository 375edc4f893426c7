import { createParser } from 'eventsource-parser';
import { authorizationHeader, problemFrom } from './api';

export interface ServiceEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export type StreamState = { state: 'connecting' } | { state: 'live' } | { state: 'unavailable'; reason: string };

const RECONNECT_MS = 3000;

/**
 * Follows `GET /v2/events` (Server-Sent Events) until `signal` aborts. EventSource cannot send
 * an Authorization header, so the stream is read with fetch and parsed with eventsource-parser;
 * after a dropped connection it resumes after the last event seen (`Last-Event-ID`). An answer
 * that says the stream is not there for this user (403 scope, 404/501 not deployed) ends it.
 */
export async function followEvents(signal: AbortSignal, onEvent: (event: ServiceEvent) => void, onState: (state: StreamState) => void): Promise<void> {
  let lastEventId: string | undefined;
  while (!signal.aborted) {
    onState({ state: 'connecting' });
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...authorizationHeader() };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await fetch('/v2/events', { headers, signal });
      if (!response.ok || !response.body) {
        const error = problemFrom(response.status, response.statusText, response.headers.get('content-type'), await response.text());
        if (response.status < 500 || response.status === 501) {
          onState({ state: 'unavailable', reason: error.message });
          return;
        }
        throw error;
      }
      onState({ state: 'live' });
      const parser = createParser({
        onEvent(message) {
          if (message.id) lastEventId = message.id;
          try {
            onEvent({ id: message.id ?? '', type: message.event ?? 'message', data: JSON.parse(message.data) as Record<string, unknown> });
          } catch {
            // A frame that is not JSON is not an event of this service; skip it.
          }
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (error) {
      if (signal.aborted) return;
      console.warn('Event stream interrupted', error);
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}
