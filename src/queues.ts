import type { Env } from './env';

/**
 * Consumes the notification and certificate queues. Notifications are logged as structured
 * lines until the events log (GET /v2/events) consumes them; certificate jobs are acknowledged
 * as skipped while `CERT_ISSUER` is `off`, the documented local default.
 */
export async function consumeQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    if (batch.queue.startsWith('sitehost-notifications')) {
      console.log(JSON.stringify({ event: message.body }));
    } else if (batch.queue.startsWith('sitehost-certificates')) {
      console.log(JSON.stringify({ certificateJob: message.body, skipped: `CERT_ISSUER=${env.CERT_ISSUER}` }));
    }
    message.ack();
  }
}
