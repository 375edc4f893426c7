import { followEvents as followEventStream } from '../../src/common/event-stream';
import { authorizationHeader } from './api';

export interface ServiceEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export type StreamState = { state: 'connecting' } | { state: 'live' } | { state: 'unavailable'; reason: string };

/**
 * Follows `GET /v2/events` until `signal` aborts (src/common/event-stream.ts: resumes after the
 * last event seen, and from the oldest kept after a gap). EventSource cannot send an
 * Authorization header, so the stream is read with fetch. An answer that says the stream is not
 * there for this user (403 scope, 404/501 not deployed) ends it.
 */
export async function followEvents(signal: AbortSignal, onEvent: (event: ServiceEvent) => void, onState: (state: StreamState) => void): Promise<void> {
  onState({ state: 'connecting' });
  const messages = followEventStream((headers, signal) => fetch('/v2/events', { headers: { ...headers, ...authorizationHeader() }, signal }), {
    signal,
    onOpen: () => onState({ state: 'live' }),
    onReconnect: (reason) => {
      console.warn('Event stream interrupted', reason);
      onState({ state: 'connecting' });
    },
  });
  try {
    for await (const message of messages) {
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(message.data) as Record<string, unknown>;
      } catch {
        continue; // A frame that is not JSON is not an event of this service.
      }
      onEvent({ id: message.id ?? '', type: message.event ?? 'message', data });
    }
  } catch (error) {
    onState({ state: 'unavailable', reason: error instanceof Error ? error.message : String(error) });
  }
}
