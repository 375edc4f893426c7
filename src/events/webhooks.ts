import type { Env } from '../env';
import { backoffSeconds, maxBatchMessages } from '../queue-limits';
import type { LoggedEvent } from './event';
import { signWebhook } from './webhook-signature';

/** One event for one receiver: a message on the webhooks queue. */
export interface WebhookDelivery {
  url: string;
  /** The event's log id: the `webhook-id`, the same on every attempt, so receivers can deduplicate. */
  id: number;
  data: string;
}

const firstRetrySeconds = 5;
const deliveryTimeoutMs = 15_000;

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
      console.error(JSON.stringify({ webhooks: 'ignored a WEBHOOK_URLS entry that is not an http(s) URL', entry: position + 1 }));
    }
  }
  return targets;
}

/** Queues one delivery per event and receiver; the deploy that caused the event is long answered. */
export async function enqueueWebhooks(env: Env, events: readonly LoggedEvent[]): Promise<void> {
  const targets = webhookTargets(env);
  if (targets.length === 0 || events.length === 0) return;
  if (!env.WEBHOOK_SECRET) {
    console.error(JSON.stringify({ webhooks: 'WEBHOOK_URLS is set but WEBHOOK_SECRET is not: no webhook is sent unsigned' }));
    return;
  }
  const deliveries = events.flatMap((event) =>
    targets.map((url): MessageSendRequest<WebhookDelivery> => ({ body: { url, id: event.id, data: event.data }, contentType: 'json' })),
  );
  for (let start = 0; start < deliveries.length; start += maxBatchMessages) {
    await env.WEBHOOKS.sendBatch(deliveries.slice(start, start + maxBatchMessages));
  }
}

/** Exponential backoff: 5 s after the first failure, doubling, capped at the queue's 12 h. */
export function retryDelaySeconds(attempts: number): number {
  return backoffSeconds(firstRetrySeconds, attempts);
}

/** POSTs the event, signed with a fresh timestamp (receivers refuse stale ones). Returns the answer's status. */
async function deliver(delivery: WebhookDelivery, secret: string): Promise<number> {
  const id = String(delivery.id);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(delivery.url, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.timeout(deliveryTimeoutMs),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'sitehost-webhooks',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signWebhook(secret, id, timestamp, delivery.data),
    },
    body: delivery.data,
  });
  await response.body?.cancel();
  return response.status;
}

/** Consumes the webhooks queue: each delivery independently, failures retried with backoff. */
export async function deliverWebhooks(batch: MessageBatch<WebhookDelivery>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const { url, id } = message.body;
      let failure: string;
      try {
        if (!env.WEBHOOK_SECRET) throw new Error('WEBHOOK_SECRET is not set');
        const status = await deliver(message.body, env.WEBHOOK_SECRET);
        if (status >= 200 && status < 300) return message.ack();
        failure = `receiver answered ${status}`;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      const delaySeconds = retryDelaySeconds(message.attempts);
      // The origin only: a receiver's path or query may hold its secret.
      console.warn(JSON.stringify({ webhook: new URL(url).origin, id, attempt: message.attempts, failure, retryInSeconds: delaySeconds }));
      message.retry({ delaySeconds });
    }),
  );
}
