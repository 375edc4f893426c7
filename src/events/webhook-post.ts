import { signWebhook } from './webhook-signature';

/** How long a receiver may take to answer one delivery. */
export const deliveryTimeoutMs = 15_000;

/**
 * POSTs one event to one receiver, signed with a fresh timestamp (receivers refuse stale ones).
 * Returns the answer's status; throws when the receiver cannot be reached or does not answer in time.
 */
export async function postWebhook(url: string, id: number, data: string, secret: string): Promise<number> {
  const webhookId = String(id);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.timeout(deliveryTimeoutMs),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'sitehost-webhooks',
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signWebhook(secret, webhookId, timestamp, data),
    },
    body: data,
  });
  await response.body?.cancel();
  return response.status;
}
