/** The statistics bench:serve and bench:analytics judge their ratios with (bench/statistics.mjs). */
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module of the benches, without type declarations.
import { everyOrder, ratioSummary, resolutionOf } from '../../bench/statistics.mjs';

const orders = everyOrder as <T>(items: T[]) => T[][];
const summary = ratioSummary as (ratios: number[]) => { median: number; low: number; high: number };
const resolution = resolutionOf as (aa: { low: number; high: number }) => number;

describe('bench statistics', () => {
  it('takes three blocks in six orders, each block first, second and last twice', () => {
    const all = orders(['open', 'protected', 'again']);
    expect(new Set(all.map((order) => order.join()))).toHaveProperty('size', 6);
    for (const name of ['open', 'protected', 'again']) {
      for (let place = 0; place < 3; place++) expect(all.filter((order) => order[place] === name)).toHaveLength(2);
    }
  });

  it("says an A/A resolves as far as its interval's farther end from 1", () => {
    expect(resolution({ low: 0.93, high: 1.04 })).toBeCloseTo(0.07);
    expect(resolution({ low: 0.99, high: 1.12 })).toBeCloseTo(0.12);
    const ratios = Array.from({ length: 61 }, (_, i) => 0.9 + i / 300);
    const { median, low, high } = summary(ratios);
    expect(median).toBeCloseTo(1);
    expect(low).toBeLessThan(median);
    expect(high).toBeGreaterThan(median);
  });
});
