import { type MessageBatchMessage, createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { deadLetterRetentionDays, forgetOldDeadLetters } from '../../src/storage/dead-letters';

interface Row {
  queue: string;
  message_id: string;
  sent_at: number;
  kept_at: number;
  body: string;
}

async function kept(queue: string): Promise<Row[]> {
  const { results } = await env.DB.prepare('SELECT * FROM dead_letters WHERE queue = ? ORDER BY message_id').bind(queue).all<Row>();
  return results;
}

/** Delivers `batch` to the Worker's queue handler, as the runtime does, and returns what it acknowledged. */
async function deliver(batch: MessageBatch<unknown>) {
  await worker.queue(batch, env);
  return getQueueResult(batch, createExecutionContext());
}

describe("the dead-letter queues' consumer", () => {
  it.each(['sitehost-notifications-dlq', 'sitehost-certificates-dlq', 'sitehost-webhooks-dlq'])(
    'keeps what %s receives in dead_letters, once however often it is delivered, and acknowledges it',
    async (queue) => {
      const sent = Date.UTC(2026, 10, 1);
      const messages: MessageBatchMessage<unknown>[] = [
        { id: `${queue}-1`, timestamp: sent, attempts: 1, body: { type: 'site-deploy', domain: 'dead.example' } },
        { id: `${queue}-2`, timestamp: sent + 1, attempts: 2, body: 'plain text' },
      ];
      for (let delivery = 0; delivery < 2; delivery++) {
        expect(await deliver(createMessageBatch(queue, messages))).toMatchObject({ ackAll: true, retryBatch: { retry: false }, retryMessages: [] });
      }
      expect(await kept(queue)).toEqual([
        { queue, message_id: `${queue}-1`, sent_at: sent, kept_at: expect.any(Number), body: '{"type":"site-deploy","domain":"dead.example"}' },
        { queue, message_id: `${queue}-2`, sent_at: sent + 1, kept_at: expect.any(Number), body: '"plain text"' },
      ]);
    },
  );

  it('never runs a dead certificate job again: the job is kept, no certificate is started', async () => {
    const queue = 'sitehost-certificates-dlq';
    await deliver(createMessageBatch(queue, [{ id: 'dead-job', timestamp: Date.now(), attempts: 1, body: { domain: 'dead-job.example' } }]));
    expect((await kept(queue)).map((row) => row.body)).toContain('{"domain":"dead-job.example"}');
    expect(await env.DB.prepare("SELECT * FROM certificates WHERE domain = 'dead-job.example'").first()).toBeNull();
  });

  it(`the daily cron deletes dead letters kept more than ${deadLetterRetentionDays} days ago`, async () => {
    const queue = 'sitehost-webhooks-dlq';
    const day = 24 * 60 * 60 * 1000;
    const insert = env.DB.prepare('INSERT INTO dead_letters (queue, message_id, sent_at, kept_at, body) VALUES (?, ?, 0, ?, ?)');
    const now = Date.UTC(2027, 0, 31);
    await env.DB.batch([
      insert.bind(queue, 'cron-old', now - (deadLetterRetentionDays + 1) * day, '1'),
      insert.bind(queue, 'cron-recent', now - (deadLetterRetentionDays - 1) * day, '2'),
    ]);
    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: '17 3 * * *' }), env);
    const ids = (await kept(queue)).map((row) => row.message_id);
    expect(ids).toContain('cron-recent');
    expect(ids).not.toContain('cron-old');
  });

  it('deletes a bounded number of old dead letters a run, the oldest first', async () => {
    const queue = 'sitehost-certificates-dlq';
    const day = 24 * 60 * 60 * 1000;
    const insert = env.DB.prepare('INSERT INTO dead_letters (queue, message_id, sent_at, kept_at, body) VALUES (?, ?, 0, ?, ?)');
    // Long before the letters other tests keep, which are then not old.
    const now = Date.UTC(2001, 0, 31);
    const old = now - (deadLetterRetentionDays + 1) * day;
    await env.DB.batch([insert.bind(queue, 'bounded-1', old - 2, '1'), insert.bind(queue, 'bounded-2', old - 1, '2'), insert.bind(queue, 'bounded-3', old, '3')]);
    await forgetOldDeadLetters(env.DB, now, 2);
    expect((await kept(queue)).map((row) => row.message_id).filter((id) => id.startsWith('bounded-'))).toEqual(['bounded-3']);
    await forgetOldDeadLetters(env.DB, now, 2);
    expect((await kept(queue)).map((row) => row.message_id).filter((id) => id.startsWith('bounded-'))).toEqual([]);
  });
});
