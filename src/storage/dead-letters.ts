import { log } from '../platform/log';

/** How long a dead letter is kept before the daily cron deletes it. */
export const deadLetterRetentionDays = 30;

/** Each queue's dead-letter queue is named after it, `<queue>-dlq` (wrangler.toml). */
export function isDeadLetterQueue(queue: string): boolean {
  return queue.endsWith('-dlq');
}

/** The message as JSON, or its text when it is no JSON value (a message sent with the `v8` content type). */
function bodyText(body: unknown): string {
  try {
    return JSON.stringify(body) ?? String(body);
  } catch {
    return String(body);
  }
}

/**
 * Consumes the dead-letter queues: each message spent its queue's retries. It is kept in D1's
 * `dead_letters` (a redelivered copy once) and logged as an error, by id only: a webhook
 * delivery's body holds its receiver's URL, which may carry a secret. When D1 fails, the batch
 * is retried (the consumer's max_retries) and every attempt is logged.
 */
export async function keepDeadLetters(batch: MessageBatch<unknown>, db: D1Database, now = Date.now()): Promise<void> {
  const insert = db.prepare('INSERT OR IGNORE INTO dead_letters (queue, message_id, sent_at, kept_at, body) VALUES (?, ?, ?, ?, ?)');
  const messageIds = batch.messages.map((message) => message.id);
  try {
    await db.batch(batch.messages.map((message) => insert.bind(batch.queue, message.id, message.timestamp.getTime(), now, bodyText(message.body))));
  } catch (error) {
    log.error('Keeping dead letters failed', { queue: batch.queue, messageIds, error });
    throw error;
  }
  log.error('Queue messages spent their retries: kept in dead_letters', { queue: batch.queue, messageIds });
  batch.ackAll();
}

/** Dead letters one daily run deletes at most: a bounded run (the rest go at the next). */
const forgetPerRun = 100_000;

/** The daily cron: deletes dead letters kept longer than `deadLetterRetentionDays`, the oldest first, at most `limit`. */
export async function forgetOldDeadLetters(db: D1Database, now: number, limit = forgetPerRun): Promise<void> {
  await db
    .prepare('DELETE FROM dead_letters WHERE rowid IN (SELECT rowid FROM dead_letters WHERE kept_at < ? ORDER BY kept_at LIMIT ?)')
    .bind(now - deadLetterRetentionDays * 24 * 60 * 60 * 1000, limit)
    .run();
}

/** The dead-letter "queue" of coordinators' follow-ups that spent their attempts (src/coordinator/sweeps/follow-ups.ts): no queue, but kept and read alike. */
export const followUpDeadLetters = 'site-follow-ups';

/** A follow-up as kept: `site` names the domain it followed. */
export type KeptFollowUp = { site?: string } & Record<string, unknown>;

/** Keeps a follow-up stored under `key` (due at `sentAt`) that spent its attempts; once. */
export async function keepFollowUp(db: D1Database, key: string, sentAt: number, followUp: KeptFollowUp): Promise<void> {
  await db
    .prepare('INSERT OR IGNORE INTO dead_letters (queue, message_id, sent_at, kept_at, body) VALUES (?, ?, ?, ?, ?)')
    .bind(followUpDeadLetters, `${followUp.site ?? ''}/${key}`, sentAt, Date.now(), bodyText(followUp))
    .run();
}

/** The follow-ups of `domain` kept as dead letters, oldest first, with the statement that forgets them (once replayed). */
export async function keptFollowUps(db: D1Database, domain: string): Promise<{ followUps: KeptFollowUp[]; forget: D1PreparedStatement }> {
  const { results } = await db
    .prepare(`SELECT message_id, body FROM dead_letters WHERE queue = ? AND json_extract(body, '$.site') = ? ORDER BY sent_at, message_id`)
    .bind(followUpDeadLetters, domain)
    .all<{ message_id: string; body: string }>();
  const forget = db
    .prepare('DELETE FROM dead_letters WHERE queue = ? AND message_id IN (SELECT value FROM json_each(?))')
    .bind(followUpDeadLetters, JSON.stringify(results.map((row) => row.message_id)));
  return { followUps: results.map((row) => JSON.parse(row.body) as KeptFollowUp), forget };
}
