import type { LoggedEvent } from './event';

/**
 * Server-Sent Events framing (WHATWG HTML §9.2). `data` is single-line JSON (JSON.stringify
 * escapes newlines) and `type` is checked on the way in, so neither can break a frame.
 */
export function sseFrame(event: LoggedEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`;
}

/** A comment line: ignored by clients, keeps proxies and load balancers from closing an idle stream. */
export const sseKeepAlive = ': keep-alive\n\n';

/** One WebSocket text message per event; `data` is spliced in verbatim to stay byte-equal to the SSE data. */
export function webSocketMessage(event: LoggedEvent): string {
  return `{"id":${event.id},"event":${JSON.stringify(event.type)},"data":${event.data}}`;
}
