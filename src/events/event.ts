/**
 * What travels on the notifications queue: `{type, domain, ...}` (site-deploy, site-delete,
 * configuration-update, files-update, certificate-issue, certificate-fail), or, for what an
 * operator does to a user rather than a site, `{type, userId, ...}` (user-suspend, user-resume).
 */
export type EventBody = { type: string } & ({ domain: string } | { userId: string });

/** What an operator does to a user, announced with the user's sites at that moment (src/api/user-suspensions.ts). */
export type UserEvent =
  | { type: 'user-suspend'; userId: string; reason: string; domains: string[] }
  | { type: 'user-resume'; userId: string; domains: string[] };
export type NotificationEvent = EventBody & { [field: string]: unknown };

/** An event as the log keeps it: `data` is the JSON text subscribers receive, byte for byte. */
export interface LoggedEvent {
  /** Position in the log: increases with every event, never reused. */
  id: number;
  type: string;
  data: string;
}

/** An event on its way into the log, named by its sender's key or by the queue message that carried it. */
export interface IncomingEvent {
  /** Its name: an event appended again under it (a redelivered message, a sender's retry) is recognised and logged once. */
  messageId: string;
  type: string;
  data: string;
  /** A user's own event (token-create, token-revoke): only that user's stream carries it. Absent: the service-wide stream's. */
  userId?: string;
  /** A site's event: the claim of its domain it was made for (an opaque name, its owner and when they claimed it). Absent: not known. */
  claim?: string;
}

/**
 * Whose events a stream carries: the service-wide ones, one site's (of those), or one user's own.
 * A site's are those of its current `claim`: made for it, or, for an event that names no claim,
 * appended from `claimedAt` on (its record's `created`); with `hidesTrust` without the trust
 * policy (src/events/trust-redaction.ts). An event of an earlier claim, logged late (retried after
 * a failure, or replayed), names its own claim and stays out.
 */
export type Audience = { userId: string } | SiteAudience | 'service';
export interface SiteAudience {
  domain: string;
  claimedAt?: number;
  claim?: string;
  hidesTrust?: boolean;
}

/** Event types become an SSE `event:` line, so they must not be able to break the framing. */
const eventType = /^[a-z][a-z0-9-]{0,63}$/;

export function isNotificationEvent(body: unknown): body is NotificationEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { type, domain, userId } = body as Record<string, unknown>;
  return typeof type === 'string' && eventType.test(type) && (typeof domain === 'string' || typeof userId === 'string');
}

/**
 * The event's data is `JSON.stringify` of the body as sent: a `site-deploy` body keeps the key
 * order of the deploy response, so its data is byte-equal to that response.
 */
export function incomingEvent(messageId: string, body: EventBody): IncomingEvent {
  return { messageId, type: body.type, data: JSON.stringify(body) };
}
