import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { backoffSeconds } from '../platform/queue-limits';
import { deliveryTimeoutMs, postWebhook } from './webhook-post';

/** One event waiting for one receiver: its log id (the `webhook-id`) and its JSON. */
export interface PendingEvent {
  id: number;
  data: string;
}

const firstRetrySeconds = 5;
/** The first attempt and 14 retries, 5 s doubling: about a day before an event is given up. */
const maxAttempts = 15;
/** Deliveries one alarm sends at once. */
const roundSize = 20;
/** An attempt holds its delivery this long: should the object stop mid-attempt, the delivery is due again after it. */
const attemptLeaseMs = deliveryTimeoutMs + 15_000;

/** Exponential backoff: 5 s after the first failure, doubling, capped at 12 h. */
export function retryDelaySeconds(attempts: number): number {
  return backoffSeconds(firstRetrySeconds, attempts);
}

/** The object that delivers to the receiver at `url`: one per receiver. */
export function webhookReceiver(env: Env, url: string): DurableObjectStub<WebhookReceiver> {
  return env.WEBHOOK_RECEIVERS.get(env.WEBHOOK_RECEIVERS.idFromName(url));
}

type DeliveryRow = { id: number; url: string; data: string; attempts: number };

/**
 * One receiver's deliveries: a durable list of pending events in SQLite, sent from the alarm and
 * retried with backoff. A receiver that hangs holds up only its own object, never another
 * receiver's deliveries nor the queue that hands them over.
 */
export class WebhookReceiver extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS deliveries (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL,
        data TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        due INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS deliveries_by_due ON deliveries (due);
    `);
  }

  /** Stores events for delivery and wakes the alarm. An event still pending is not stored twice. */
  async accept(url: string, events: readonly PendingEvent[]): Promise<void> {
    const now = Date.now();
    const { sql } = this.ctx.storage;
    this.ctx.storage.transactionSync(() => {
      for (const event of events) {
        sql.exec('INSERT INTO deliveries (id, url, data, attempts, due) VALUES (?, ?, ?, 0, ?) ON CONFLICT (id) DO NOTHING', event.id, url, event.data, now);
      }
    });
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > now) await this.ctx.storage.setAlarm(now);
  }

  /** Sends the due deliveries at once, then sleeps until the next one is due. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const { sql } = this.ctx.storage;
    const due = sql.exec<DeliveryRow>('SELECT id, url, data, attempts FROM deliveries WHERE due <= ? ORDER BY id LIMIT ?', now, roundSize).toArray();
    for (const delivery of due) sql.exec('UPDATE deliveries SET due = ? WHERE id = ?', now + attemptLeaseMs, delivery.id);
    await Promise.all(due.map((delivery) => this.#attempt(delivery)));
    const next = sql.exec<{ due: number | null }>('SELECT min(due) AS due FROM deliveries').one().due;
    if (next !== null) await this.ctx.storage.setAlarm(Math.max(next, Date.now()));
  }

  async #attempt(delivery: DeliveryRow): Promise<void> {
    const failure = await this.#send(delivery);
    const { sql } = this.ctx.storage;
    const attempts = delivery.attempts + 1;
    if (failure === undefined || attempts >= maxAttempts) sql.exec('DELETE FROM deliveries WHERE id = ?', delivery.id);
    if (failure === undefined) return;
    // The origin only: a receiver's path or query may hold its secret.
    const report = { webhook: new URL(delivery.url).origin, id: delivery.id, attempt: attempts, failure };
    if (attempts >= maxAttempts) {
      log.error('Webhook delivery given up', { ...report, gaveUp: true });
      return;
    }
    const retryInSeconds = retryDelaySeconds(attempts);
    sql.exec('UPDATE deliveries SET attempts = ?, due = ? WHERE id = ?', attempts, Date.now() + retryInSeconds * 1000, delivery.id);
    log.warn('Webhook delivery failed; retrying', { ...report, retryInSeconds });
  }

  /** One attempt; the reason it failed, or undefined when the receiver took the event. */
  async #send(delivery: DeliveryRow): Promise<string | undefined> {
    const secret = this.env.WEBHOOK_SECRET;
    if (!secret) return 'WEBHOOK_SECRET is not set';
    try {
      const status = await postWebhook(delivery.url, delivery.id, delivery.data, secret);
      return status >= 200 && status < 300 ? undefined : `receiver answered ${status}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
