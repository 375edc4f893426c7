/**
 * The statistics the benches judge their ratios by (bench/statistics.mjs): the Hodges–Lehmann
 * centre of paired ratios and its interval, against figures worked by hand; what an A/A
 * resolves, and the verdict a target line prints; the orders bench:serve's blocks take turns in.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module of the benches, without type declarations.
import { everyOrder, ratioCentre as centreOf, ratioSummary as summaryOf, resolutionOf, verdictOf } from '../../bench/statistics.mjs';

type Interval = { low: number; high: number };
const ratioCentre = centreOf as (ratios: number[]) => Interval & { centre: number; text: string };
const ratioSummary = summaryOf as (ratios: number[]) => Interval & { median: number; text: string };
const orders = everyOrder as <T>(items: T[]) => T[][];
const resolution = resolutionOf as (aa: Interval) => number;
const verdict = verdictOf as (ratio: Interval, aa: Interval, goal: { atLeast: number; resolves: number; what: string }) => { met: boolean; why: string };

describe('ratioCentre', () => {
  it('is the ratio itself when every cycle gave the same', () => {
    const summary = ratioCentre(Array.from({ length: 20 }, () => 0.95));
    expect(summary.centre).toBeCloseTo(0.95, 12);
    expect(summary.low).toBeCloseTo(0.95, 12);
    expect(summary.high).toBeCloseTo(0.95, 12);
  });

  it('is centred on a log scale: a ratio and its inverse weigh alike', () => {
    const ratios = [0.8, 0.9, 1, 1 / 0.9, 1 / 0.8];
    expect(ratioCentre(ratios).centre).toBeCloseTo(1, 12);
    // 5 ratios: 15 means of two, k = floor(7.5 − 1.96·√13.75) = 0, so the interval is the extremes (k at least 1).
    expect(ratioCentre(ratios).low).toBeCloseTo(0.8, 12);
    expect(ratioCentre(ratios).high).toBeCloseTo(1.25, 12);
  });

  it('moves little for an outlier, where the mean would', () => {
    const steady = Array.from({ length: 40 }, (_, i) => 0.96 + (i % 5) * 0.01);
    const withOutlier = [...steady.slice(1), 5];
    expect(Math.abs(ratioCentre(withOutlier).centre - ratioCentre(steady).centre)).toBeLessThan(0.005);
  });

  it('narrows as the cycles grow, and needs fewer of them than the median for the same interval', () => {
    // A fixed spread of logs, ±10 % about 0.97, repeated: the interval shrinks as about 1/√n.
    const spread = Array.from({ length: 50 }, (_, i) => 0.97 * Math.exp(0.1 * Math.sin(i * 2.4)));
    const width = (summary: Interval) => summary.high - summary.low;
    const small = ratioCentre(spread);
    const large = ratioCentre([...spread, ...spread, ...spread, ...spread]);
    expect(width(large) / width(small)).toBeGreaterThan(0.4);
    expect(width(large) / width(small)).toBeLessThan(0.6);
    expect(width(small)).toBeLessThan(width(ratioSummary(spread)));
    expect(small.text).toMatch(/^0\.9\d\d \(95 % interval 0\.9\d\d–0\.9\d\d, Hodges–Lehmann; quartiles .+; 50 cycles\)$/);
  });
});

describe('resolutionOf', () => {
  it("is how far the A/A's interval reaches from 1, on its farther side", () => {
    expect(resolution({ low: 0.93, high: 1.04 })).toBeCloseTo(0.07, 12);
    expect(resolution({ low: 0.99, high: 1.12 })).toBeCloseTo(0.12, 12);
  });
});

describe('everyOrder', () => {
  it('takes three blocks in six orders, each block first, second and last twice', () => {
    const all = orders(['open', 'protected', 'copy']);
    expect(new Set(all.map((order) => order.join()))).toHaveProperty('size', 6);
    for (const name of ['open', 'protected', 'copy']) {
      for (let place = 0; place < 3; place++) expect(all.filter((order) => order[place] === name)).toHaveLength(2);
    }
  });
});

describe('verdictOf', () => {
  const goal = { atLeast: 0.97, resolves: 0.03, what: 'counting' };
  const sharpAa = { low: 0.99, high: 1.02 };

  it('is met when the A/A resolves and the interval lies above the goal', () => {
    expect(verdict({ low: 0.975, high: 1.01 }, sharpAa, goal)).toEqual({ met: true, why: '' });
  });

  it('says the instrument was too coarse first, whatever the ratio', () => {
    expect(verdict({ low: 0.98, high: 1.01 }, { low: 0.96, high: 1.01 }, goal)).toEqual({ met: false, why: '; the A/A resolved ±4.0 % only: more cycles (BENCH_CYCLES) or a quieter machine' });
    expect(verdict({ low: 0.98, high: 1.01 }, { low: 0.97, high: 1.01 }, goal).met).toBe(false);
  });

  it('tells a cost beyond the margin from an interval that only reaches below it', () => {
    expect(verdict({ low: 0.94, high: 0.965 }, sharpAa, goal)).toEqual({ met: false, why: '; counting costs more than 3 %' });
    expect(verdict({ low: 0.96, high: 0.99 }, sharpAa, goal)).toEqual({ met: false, why: '; its interval reaches below 0.97' });
  });
});
