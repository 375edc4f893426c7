import { describe, expect, it } from 'vitest';
import { type Hit, Tally, maxMessageBytes } from '../../src/traffic/tally';

const site = { domain: 'tally.example', claim: 1 };
const at = Date.UTC(2026, 10, 29, 10, 30);

function hit(overrides: Partial<Hit> = {}): Hit {
  return { site, host: 'live', deployment: 'd1', at, status: 200, bytes: 100, pageView: true, bot: false, path: '/', referrer: null, country: 'DE', ...overrides };
}

let ids = 0;
const newId = () => `batch-${++ids}`;

describe('an isolate tally', () => {
  it('keeps hosts, hours and deployments apart, and bots out of the human counts', () => {
    const tally = new Tally({ valuesPerSite: 10, valuesTotal: 100 });
    tally.count(hit());
    tally.count(hit({ host: 'preview' }));
    tally.count(hit({ at: at + 3_600_000 }));
    tally.count(hit({ deployment: 'd2', status: 404, pageView: false, path: '/gone' }));
    tally.count(hit({ bot: true }));
    const [batch, ...more] = tally.take(newId);
    expect(more).toEqual([]);
    expect(batch!.entries.map((entry) => [entry.host, entry.hour - at + 1_800_000, entry.deployment, entry.counts])).toEqual([
      ['live', 0, 'd1', [1, 1, 100, 1, 0, 0, 0, 1, 1, 100]],
      ['preview', 0, 'd1', [1, 1, 100, 1, 0, 0, 0, 0, 0, 0]],
      ['live', 3_600_000, 'd1', [1, 1, 100, 1, 0, 0, 0, 0, 0, 0]],
      ['live', 0, 'd2', [1, 0, 100, 0, 0, 1, 0, 0, 0, 0]],
    ]);
    expect(batch!.entries[3]!.tops[3]).toEqual([['/gone', 1]]);
    expect(tally.empty).toBe(true);
  });

  it('counts values past the per-site and total caps as "other"', () => {
    const tally = new Tally({ valuesPerSite: 3, valuesTotal: 5 });
    for (let i = 0; i < 10; i++) tally.count(hit({ path: `/p${i}` }));
    for (let i = 0; i < 10; i++) tally.count(hit({ site: { domain: 'other.example', claim: 1 }, path: `/q${i}` }));
    const [batch] = tally.take(newId);
    const [first, second] = batch!.entries;
    expect(first!.tops[0]).toHaveLength(3);
    expect(first!.other[0]).toBe(7);
    // Five values in all: the first site holds four (three paths and its country), the second one path, and its country is "other".
    expect(second!.tops[0]).toEqual([['/q0', 1]]);
    expect(second!.other[0]).toBe(9);
    expect(second!.other[2]).toBe(10);
  });

  it('splits what it counted into messages under the queue size limit, and sends a sketch dense once that is shorter', () => {
    const tally = new Tally({ valuesPerSite: 100, valuesTotal: 100_000 });
    for (let s = 0; s < 400; s++) for (let i = 0; i < 20; i++) tally.count(hit({ site: { domain: `site-${s}.example`, claim: 1 }, path: `/a-rather-long-path/number-${i}` }));
    for (let r = 0; r < 5_000; r++) tally.visit(site, 'live', at, ((r * 7919) % 16384) * 64 + 3);
    const batches = tally.take(newId);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(JSON.stringify(batch).length).toBeLessThanOrEqual(maxMessageBytes + 100);
    expect(batches.flatMap((batch) => batch.entries)).toHaveLength(400);
    const [visitors] = batches.flatMap((batch) => batch.visitors);
    expect(typeof visitors!.registers).toBe('string');
    expect(atob(visitors!.registers as string)).toHaveLength(16_384);
  });
});
