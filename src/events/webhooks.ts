import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { maxBatchMessages } from '../platform/queue-limits';
import type { LoggedEvent } from './event';
import { retryDelaySeconds, webhookReceiver } from './webhook-receiver';

/** One event for one receiver: a message on the webhooks queue. */
export interface WebhookDelivery {
  url: string;
  /** The event's log id: the `webhook-id`, the same on every attempt, so receivers can deduplicate. */
  id: number;
  data: string;
}

/** The receivers in `WEBHOOK_URLS` (comma-separated http(s) URLs); an empty var turns webhooks off. */
export function webhookTargets(env: Env): string[] {
  const targets: string[] = [];
  for (const [position, entry] of env.WEBHOOK_URLS.split(',').entries()) {
    const candidate = entry.trim();
    if (!candidate) continue;
    const url = URL.canParse(candidate) ? new URL(candidate) : undefined;
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
      targets.push(url.href);
    } else {
      // Its position, not its text: receivers such as chat webhooks carry their secret in the URL.
      log.error('Ignored a WEBHOOK_URLS entry that is not an http(s) URL', { entry: position + 1 });
    }
  }
  return targets;
}

/** Queues one delivery per event and receiver; the deploy that caused the event is long answered. */
export async function enqueueWebhooks(env: Env, events: readonly LoggedEvent[]): Promise<void> {
  const targets = webhookTargets(env);
  if (targets.length === 0 || events.length === 0) return;
  if (!env.WEBHOOK_SECRET) {
    log.error('WEBHOOK_URLS is set but WEBHOOK_SECRET is not: no webhook is sent unsigned');
    return;
  }
  const deliveries = events.flatMap((event) =>
    targets.map((url): MessageSendRequest<WebhookDelivery> => ({ body: { url, id: event.id, data: event.data }, contentType: 'json' })),
  );
  for (let start = 0; start < deliveries.length; start += maxBatchMessages) {
    await env.WEBHOOKS.sendBatch(deliveries.slice(start, start + maxBatchMessages));
  }
}

/**
 * Consumes the webhooks queue: hands each receiver's deliveries to that receiver's object, which
 * stores them and sends them from its alarm. A message is acknowledged once its receiver holds it;
 * a handover that fails is retried with backoff.
 */
export async function deliverWebhooks(batch: MessageBatch<WebhookDelivery>, env: Env): Promise<void> {
  const byReceiver = new Map<string, Message<WebhookDelivery>[]>();
  for (const message of batch.messages) byReceiver.set(message.body.url, [...(byReceiver.get(message.body.url) ?? []), message]);
  await Promise.all(
    [...byReceiver].map(async ([url, messages]) => {
      try {
        await webhookReceiver(env, url).accept(url, messages.map(({ body }) => ({ id: body.id, data: body.data })));
        for (const message of messages) message.ack();
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        // The origin only: a receiver's path or query may hold its secret.
        log.warn('Webhook handover failed', { webhook: new URL(url).origin, failure });
        for (const message of messages) message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }),
  );
}
