import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import type { Audience } from './event';
import { eventLog, subscription } from './event-log';

/**
 * The position a subscriber resumes after: `Last-Event-ID` (sent by an EventSource when it
 * reconnects) wins over `?since=` (kept in the URL it reconnects to). Undefined: live only.
 */
function resumePosition(request: Request): number | undefined {
  const header = request.headers.get('last-event-id')?.trim();
  const [value, source] = header ? [header, 'Last-Event-ID'] : [new URL(request.url).searchParams.get('since'), 'since'];
  if (value === null) return undefined;
  const position = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(position)) {
    throw new Problem('invalid-request', `${source} must be the id of an event: a whole number of at least 0, not "${value}".`);
  }
  return position;
}

/** `GET /v2/events` (the service's) and `GET /v2/user/events` (a user's own): hands the subscriber to the event log, as SSE or a WebSocket. */
export function subscribe(env: Env, request: Request, audience: Audience): Promise<Response> {
  return eventLog(env).fetch(subscription(resumePosition(request), request.headers.get('upgrade'), audience));
}
