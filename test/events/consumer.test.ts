import { type MessageBatchMessage, createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { consumeQueue } from '../../src/queues';
import { subscribe } from './subscriber';

describe('the notifications consumer', () => {
  it('logs a batch in order, once even when the batch is redelivered, and drops what is not an event', async () => {
    const subscriber = await subscribe();
    const messages: MessageBatchMessage[] = [
      { id: 'consumer-1', timestamp: Date.now(), attempts: 1, body: { type: 'configuration-update', domain: 'consumer.example' } },
      { id: 'consumer-2', timestamp: Date.now(), attempts: 1, body: 'not an event' },
      { id: 'consumer-3', timestamp: Date.now(), attempts: 1, body: { type: 'files-update', domain: 'consumer.example', paths: ['a'] } },
      { id: 'consumer-4', timestamp: Date.now(), attempts: 1, body: { type: 'Bad\nType', domain: 'consumer.example' } },
    ];
    for (let delivery = 0; delivery < 2; delivery++) {
      const batch = createMessageBatch('sitehost-notifications', messages);
      const ctx = createExecutionContext();
      await consumeQueue(batch, env);
      expect(await getQueueResult(batch, ctx)).toMatchObject({ ackAll: true, retryMessages: [] });
    }
    await subscriber.until(() => subscriber.of(['consumer.example']).length >= 2);
    // One more event proves the redelivery added nothing before it.
    const [, last] = subscriber.of(['consumer.example']);
    const marker = createMessageBatch('sitehost-notifications', [
      { id: 'consumer-5', timestamp: Date.now(), attempts: 1, body: { type: 'site-delete', domain: 'consumer.example' } },
    ]);
    await consumeQueue(marker, env);
    await subscriber.until(() => subscriber.of(['consumer.example']).some((event) => event.event === 'site-delete'));
    expect(subscriber.of(['consumer.example']).map((event) => [event.event, event.data])).toEqual([
      ['configuration-update', '{"type":"configuration-update","domain":"consumer.example"}'],
      ['files-update', '{"type":"files-update","domain":"consumer.example","paths":["a"]}'],
      ['site-delete', '{"type":"site-delete","domain":"consumer.example"}'],
    ]);
    expect(Number(subscriber.of(['consumer.example'])[2]!.id)).toBe(Number(last!.id) + 1);
    await subscriber.close();
  });
});
