import { consumeCertificateJobs } from './certificates/jobs';
import type { Env } from './platform/env';
import { consumeNotifications } from './events/notifications';
import { type WebhookDelivery, deliverWebhooks } from './events/webhooks';
import { isDeadLetterQueue, keepDeadLetters } from './storage/dead-letters';
import { consumeTraffic } from './traffic/consumer';

/**
 * Consumes the queues. Notifications go to the event log (src/events) and on to the webhooks
 * queue; certificate jobs are run by src/certificates/jobs.ts; traffic batches are merged per
 * site by src/traffic/consumer.ts; what every queue's dead-letter
 * queue (`<queue>-dlq`, matched first) receives is kept in D1 for operators.
 */
export async function consumeQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (isDeadLetterQueue(batch.queue)) return keepDeadLetters(batch, env.DB);
  if (batch.queue.startsWith('sitehost-notifications')) return consumeNotifications(batch, env);
  if (batch.queue.startsWith('sitehost-webhooks')) return deliverWebhooks(batch as MessageBatch<WebhookDelivery>, env);
  if (batch.queue.startsWith('sitehost-certificates')) return consumeCertificateJobs(batch, env);
  if (batch.queue.startsWith('sitehost-traffic')) return consumeTraffic(batch, env);
  for (const message of batch.messages) message.ack();
}
