import { describe, expect, it } from 'vitest';
import { authorized, deploy } from '../support/client';
import { Subscriber, subscribe } from './subscriber';

const ids = (subscriber: Subscriber, domains: string[]) => subscriber.of(domains).map((event) => Number(event.id));

function expectStrictlyIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
}

async function deployed(domain: string): Promise<string> {
  const response = await deploy(domain, { 'index.html': domain });
  expect(response.status).toBe(200);
  return response.text();
}

describe('GET /v2/events (Server-Sent Events)', () => {
  it('delivers a deploy result byte-equal to the deploy response, through the real queue', async () => {
    const subscriber = await subscribe();
    expect(subscriber.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(subscriber.response.headers.get('cache-control')).toBe('no-store');
    const response = await deploy('stream-first.example', { 'index.html': 'hi' }, { root: '.' });
    const body = await response.text();
    expect(response.status).toBe(200);

    await subscriber.until(() => subscriber.of(['stream-first.example']).length === 1);
    const [event] = subscriber.of(['stream-first.example']);
    expect(event!.event).toBe('site-deploy');
    expect(event!.data).toBe(body);
    expect(subscriber.raw).toContain(`id: ${event!.id}\nevent: site-deploy\ndata: ${body}\n\n`);
    await subscriber.close();
  });

  it('publishes an unpublish as site-delete', async () => {
    const subscriber = await subscribe();
    await deployed('stream-delete.example');
    expect((await authorized('/v2/sites/stream-delete.example', { method: 'DELETE' })).status).toBe(200);
    await subscriber.until(() => subscriber.of(['stream-delete.example']).length === 2);
    const [deployEvent, deleteEvent] = subscriber.of(['stream-delete.example']);
    expect(deployEvent!.event).toBe('site-deploy');
    expect(deleteEvent!.event).toBe('site-delete');
    expect(JSON.parse(deleteEvent!.data)).toEqual({ type: 'site-delete', domain: 'stream-delete.example' });
    await subscriber.close();
  });

  it('replays exactly the missed events after Last-Event-ID, in order, none twice, then goes on live', async () => {
    const witness = await subscribe();
    const first = await subscribe();
    const before = ['resume-1.example', 'resume-2.example'];
    for (const domain of before) await deployed(domain);
    await first.until(() => first.of(before).length === 2);
    const lastSeen = first.lastId();
    await first.close();

    const missed = ['resume-3.example', 'resume-4.example', 'resume-5.example'];
    for (const domain of missed) await deployed(domain);
    await witness.until(() => witness.of(missed).length === 3);
    const lastMissed = Number(witness.of(missed).at(-1)!.id);
    // What the witness saw after lastSeen, other tests' events included, is what was missed.
    const expected = witness.events.filter((event) => Number(event.id) > Number(lastSeen) && Number(event.id) <= lastMissed);

    // EventSource keeps the URL it first opened (here ?since=0) and adds Last-Event-ID: the header wins.
    const resumed = await subscribe('?since=0', { 'last-event-id': lastSeen });
    await resumed.until(() => resumed.of(missed).length === 3);
    const replayed = resumed.events.filter((event) => Number(event.id) <= lastMissed);
    expect(replayed.map((event) => [event.id, event.data])).toEqual(expected.map((event) => [event.id, event.data]));

    await deployed('resume-6.example');
    await resumed.until(() => resumed.of(['resume-6.example']).length === 1);
    const all = resumed.events.map((event) => Number(event.id));
    expectStrictlyIncreasing(all);
    expect(resumed.of([...before, ...missed, 'resume-6.example']).map((event) => JSON.parse(event.data).domain)).toEqual([
      ...missed,
      'resume-6.example',
    ]);
    await Promise.all([witness.close(), resumed.close()]);
  });

  it('replays from ?since= as well', async () => {
    const witness = await subscribe();
    await deployed('since-1.example');
    await witness.until(() => witness.of(['since-1.example']).length === 1);
    const [event] = witness.of(['since-1.example']);
    const replay = await subscribe(`?since=${Number(event!.id) - 1}`);
    await replay.until(() => replay.events.length > 0);
    expect(replay.events[0]).toEqual(event);
    await Promise.all([witness.close(), replay.close()]);
  });

  it('loses nothing over 100 deploys with 20 subscribers, and a stalled subscriber holds up no one', async () => {
    const subscribers = await Promise.all(Array.from({ length: 20 }, () => subscribe()));
    // Connected, never read until the end: the deploys and the others must not wait for it.
    const stalledResponse = await authorized('/v2/events', {}, { scope: 'global_read' });
    const domains = Array.from({ length: 100 }, (_, i) => `load-${i}.example`);
    const bodies = new Map<string, string>();
    for (let start = 0; start < domains.length; start += 10) {
      await Promise.all(domains.slice(start, start + 10).map(async (domain) => bodies.set(domain, await deployed(domain))));
    }
    await Promise.all(subscribers.map((subscriber) => subscriber.until(() => subscriber.of(domains).length >= 100)));

    const reference = subscribers[0]!.of(domains).map((event) => [event.id, event.data]);
    expect(new Set(reference.map(([, data]) => JSON.parse(data!).domain))).toEqual(new Set(domains));
    for (const [, data] of reference) expect(bodies.get(JSON.parse(data!).domain)).toBe(data);
    for (const subscriber of subscribers) {
      expect(subscriber.of(domains).map((event) => [event.id, event.data])).toEqual(reference);
      expectStrictlyIncreasing(subscriber.events.map((event) => Number(event.id)));
    }

    // Reading the log at its own pace, the stalled subscriber catches up without a gap.
    const stalled = new Subscriber(stalledResponse);
    await stalled.until(() => stalled.of(domains).length >= 100);
    expect(stalled.of(domains).map((event) => [event.id, event.data])).toEqual(reference);
    expect(ids(stalled, domains)).toEqual(ids(subscribers[0]!, domains));
    await Promise.all([...subscribers, stalled].map((subscriber) => subscriber.close()));
  });
});
