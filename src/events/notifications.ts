import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { type EventBody, type IncomingEvent, type NotificationEvent, incomingEvent, isNotificationEvent } from './event';
import { eventLog } from './event-log';
import { enqueueWebhooks } from './webhooks';

/**
 * A notification that names itself: a sender that may send it again (a coordinator that stopped
 * after sending but before noting it sent) gives every copy the same key, and the log keeps one.
 */
export interface KeyedNotification {
  key: string;
  event: EventBody;
  /** A site's event: the claim of its domain it was made for (src/events/event.ts, `IncomingEvent`). */
  claim?: string | null;
}

/** `notification` as the log takes it in. */
function keyedIncoming(notification: { key: string; event: EventBody; claim?: unknown }): IncomingEvent {
  const incoming = incomingEvent(keyedMessageId(notification.key), notification.event);
  return typeof notification.claim === 'string' ? { ...incoming, claim: notification.claim } : incoming;
}

/** The name the log knows a keyed notification by, whoever appends it. */
function keyedMessageId(key: string): string {
  return `key:${key}`;
}

/**
 * Publishes a notification durably: it is appended to the event log (and so reaches subscribers
 * at once) and sent to the notifications queue, whose consumer hands it to the webhooks, both at
 * once. Once this resolves the event is in the log, whatever becomes of the queue's message; a
 * sender that retries after a failure or a stop (with the same key) adds nothing to the log.
 */
export async function publish(env: Env, notification: KeyedNotification): Promise<void> {
  await Promise.all([
    eventLog(env).append([keyedIncoming(notification)]),
    env.NOTIFICATIONS.send(notification, { contentType: 'json' }),
  ]);
}

/** A user's own event (docs/events.md, "Your own events"): what it says, never a secret. */
export interface UserEvent {
  type: string;
  userId: string;
  [field: string]: unknown;
}

/**
 * Logs a user's own event for their stream only: not to the webhooks, which are the operator's,
 * nor to the service-wide stream. Appended again under the same key, it is logged once.
 */
export async function publishToUser(env: Env, key: string, event: UserEvent): Promise<void> {
  await eventLog(env).append([{ messageId: keyedMessageId(key), type: event.type, data: JSON.stringify(event), userId: event.userId }]);
}

function isKeyedNotification(body: unknown): body is { key: string; event: NotificationEvent; claim?: unknown } {
  if (typeof body !== 'object' || body === null) return false;
  const { key, event } = body as Record<string, unknown>;
  return typeof key === 'string' && isNotificationEvent(event);
}

/** The event a message carries and the name the log knows it by: its key, or the queue message's id. */
function incomingOf(message: Message<unknown>): IncomingEvent | undefined {
  const { body } = message;
  if (isKeyedNotification(body)) return keyedIncoming(body);
  if (isNotificationEvent(body)) return incomingEvent(message.id, body);
  return undefined;
}

/**
 * Consumes the notifications queue: the whole batch goes to the event log in one call, in
 * order, then to the webhooks queue. A keyed notification's sender logged it already (see
 * publish): the log recognises it and answers its id. When either call fails the batch is
 * redelivered; the log recognises messages it already holds, so no event is logged twice.
 */
export async function consumeNotifications(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const events: IncomingEvent[] = [];
  for (const message of batch.messages) {
    const event = incomingOf(message);
    if (event) events.push(event);
    else log.error('Dropped a notification that is not a {type, domain} or {type, userId} event', { body: message.body });
  }
  const logged = events.length > 0 ? await eventLog(env).append(events) : [];
  await enqueueWebhooks(env, logged);
  batch.ackAll();
}
