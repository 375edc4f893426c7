import type { Env } from '../env';
import { type IncomingEvent, incomingEvent, isNotificationEvent } from './event';
import { eventLog } from './event-log';
import { enqueueWebhooks } from './webhooks';

/**
 * Consumes the notifications queue: the whole batch goes to the event log in one call, in
 * order, then to the webhooks queue. When either fails the batch is redelivered; the log
 * recognises messages it already holds, so no event is logged twice.
 */
export async function consumeNotifications(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const events: IncomingEvent[] = [];
  for (const message of batch.messages) {
    if (isNotificationEvent(message.body)) events.push(incomingEvent(message.id, message.body));
    else console.error(JSON.stringify({ notification: 'dropped a message that is not a {type, domain} event', body: message.body }));
  }
  const logged = events.length > 0 ? await eventLog(env).append(events) : [];
  await enqueueWebhooks(env, logged);
  batch.ackAll();
}
