import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { IncomingEvent } from '../../src/events/event';
import { subscription } from '../../src/events/event-log';
import { Subscriber } from './subscriber';

/** A log of its own, so that these tests control every event in it. */
function privateLog(name: string) {
  return env.EVENTS.get(env.EVENTS.idFromName(`test-${name}`));
}

function incoming(messageId: string, domain = `${messageId}.example`): IncomingEvent {
  return { messageId, type: 'site-deploy', data: JSON.stringify({ type: 'site-deploy', domain }) };
}

const dayMs = 86_400_000;

describe('the event log', () => {
  it('numbers events in order and logs a redelivered message once', async () => {
    const log = privateLog('numbering');
    const first = await log.append([incoming('a'), incoming('b')]);
    expect(first.map(({ id, isNew }) => [id, isNew])).toEqual([
      [1, true],
      [2, true],
    ]);
    const again = await log.append([incoming('b'), incoming('c')]);
    expect(again.map(({ id, isNew }) => [id, isNew])).toEqual([
      [2, false],
      [3, true],
    ]);
    const subscriber = new Subscriber(await log.fetch(subscription(0, null)));
    await subscriber.until(() => subscriber.events.length === 3);
    expect(subscriber.events.map((event) => event.id)).toEqual(['1', '2', '3']);
    await subscriber.close();
  });

  it('keeps EVENTS_RETENTION_DAYS of history, answers 410 past it, and never reuses an id', async () => {
    const log = privateLog('retention');
    await log.append([incoming('old-1'), incoming('old-2'), incoming('recent')]);
    const now = Date.now();
    await runInDurableObject(log, (_, state) => {
      state.storage.sql.exec('UPDATE events SET created = ? WHERE id IN (1, 2)', now - 8 * dayMs);
      state.storage.sql.exec('UPDATE events SET created = ? WHERE id = 3', now - 6 * dayMs);
    });
    await log.append([incoming('new')]);

    const expired = await log.fetch(subscription(1, null));
    expect(expired.status).toBe(410);
    expect(await expired.json()).toMatchObject({ type: '/problems/gone', status: 410 });

    for (const since of [2, 0]) {
      const kept = new Subscriber(await log.fetch(subscription(since, null)));
      await kept.until(() => kept.events.length === 2);
      expect(kept.events.map((event) => [event.id, JSON.parse(event.data).domain])).toEqual([
        ['3', 'recent.example'],
        ['4', 'new.example'],
      ]);
      await kept.close();
    }

    await runInDurableObject(log, (_, state) => void state.storage.sql.exec('DELETE FROM events'));
    expect((await log.fetch(subscription(3, null))).status).toBe(410);
    const [next] = await log.append([incoming('after-empty')]);
    expect(next!.id).toBe(5);
  });

  it('sends a keep-alive comment on a quiet stream every 15 s', async () => {
    const opened = Date.now();
    const subscriber = new Subscriber(await privateLog('quiet').fetch(subscription(undefined, null)));
    await subscriber.until(() => subscriber.comments.length > 0, 20_000);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(14_000);
    expect(subscriber.raw).toBe(': keep-alive\n\n');
    await subscriber.close();
  }, 30_000);
});
