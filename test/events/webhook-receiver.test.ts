import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { type WebhookReceiver, webhookReceiver } from '../../src/events/webhook-receiver';

/** Nothing listens on port 1: every attempt fails with a real network error. */
const unreachable = 'http://127.0.0.1:1/hook';

type Row = { id: number; attempts: number; due: number };

function receiverWithSecret(url: string) {
  const stub = webhookReceiver(env, url);
  return runInDurableObject(stub, (instance: WebhookReceiver) => {
    (instance as unknown as { env: typeof env }).env = { ...env, WEBHOOK_SECRET: 'test webhook secret' };
    return stub;
  });
}

function pending(stub: DurableObjectStub<WebhookReceiver>): Promise<Row[]> {
  return runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<Row>('SELECT id, attempts, due FROM deliveries ORDER BY id').toArray());
}

describe('WebhookReceiver', () => {
  it('keeps a failed delivery and retries it 5 s later, doubling; an event it holds is not stored twice', async () => {
    const stub = await receiverWithSecret(unreachable);
    await stub.accept(unreachable, [{ id: 1, data: '{"type":"site-delete","domain":"receiver-deleted.example"}' }]);
    await stub.accept(unreachable, [{ id: 1, data: '{"type":"site-delete","domain":"receiver-deleted.example"}' }]);
    // The delay counts from the failed attempt, which lies between these two readings of the clock.
    const before = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = Date.now();
    const [first] = await pending(stub);
    expect(first).toMatchObject({ id: 1, attempts: 1 });
    expect(first!.due - before).toBeGreaterThanOrEqual(5_000);
    expect(first!.due - after).toBeLessThanOrEqual(5_000);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(first!.due);

    // Due again: the second failure waits 10 s.
    await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec('UPDATE deliveries SET due = 0'));
    const again = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const afterAgain = Date.now();
    const [second] = await pending(stub);
    expect(second).toMatchObject({ id: 1, attempts: 2 });
    expect(second!.due - again).toBeGreaterThanOrEqual(10_000);
    expect(second!.due - afterAgain).toBeLessThanOrEqual(10_000);
  });

  it('gives a delivery up after its 15th failed attempt', async () => {
    const url = `${unreachable}?given-up`;
    const stub = await receiverWithSecret(url);
    await stub.accept(url, [{ id: 7, data: '{}' }]);
    await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec('UPDATE deliveries SET attempts = 14'));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await pending(stub)).toEqual([]);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();
  });
});
