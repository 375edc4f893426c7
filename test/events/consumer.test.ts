import { type MessageBatchMessage, createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publish } from '../../src/events/notifications';
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

  it('adds nothing for a keyed notification its sender logged already', async () => {
    const subscriber = await subscribe();
    const event = { type: 'configuration-update', domain: 'consumer-keyed.example', deploymentId: 'one' };
    // The sender logs it itself; this queue keeps nothing, so only the batch below delivers it.
    await publish({ ...env, NOTIFICATIONS: { send: async () => undefined } as unknown as Queue<unknown> }, { key: 'change-1', event });
    await subscriber.until(() => subscriber.of(['consumer-keyed.example']).length === 1);
    const batch = createMessageBatch('sitehost-notifications', [
      { id: 'consumer-keyed-1', timestamp: Date.now(), attempts: 1, body: { key: 'change-1', event } },
      { id: 'consumer-keyed-2', timestamp: Date.now(), attempts: 1, body: { key: 'change-2', event: { ...event, deploymentId: 'two' } } },
    ]);
    await consumeQueue(batch, env);
    expect(await getQueueResult(batch, createExecutionContext())).toMatchObject({ ackAll: true, retryMessages: [] });
    await subscriber.until(() => subscriber.of(['consumer-keyed.example']).length >= 2);
    expect(subscriber.of(['consumer-keyed.example']).map((logged) => JSON.parse(logged.data).deploymentId)).toEqual(['one', 'two']);
    await subscriber.close();
  });
});
