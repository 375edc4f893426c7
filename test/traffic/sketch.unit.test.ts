import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { coarsePrecision, emptyRegisters, estimate, finePrecision, folded, mergeFine, mergeRegisters, registerOf } from '../../src/traffic/sketch';

/** The fine register of distinct value `i`, hashed as visitors are (SHA-256, first 64 bits). */
function register(i: number, salt = 'a'): number {
  const digest = createHash('sha256').update(`${salt}\u0000${i}`).digest();
  return registerOf(digest.readUInt32BE(0), digest.readUInt32BE(4));
}

function sketchOf(count: number, precision: number, salt?: string) {
  const registers = emptyRegisters(precision);
  mergeFine(registers, Array.from({ length: count }, (_, i) => register(i, salt)));
  return registers;
}

describe('visitor sketches', () => {
  it.each([10, 1_000, 10_000, 100_000])('estimates %i distinct visitors within ±3 % with fine registers', (count) => {
    const error = Math.abs(estimate(sketchOf(count, finePrecision)) - count) / count;
    expect(error).toBeLessThanOrEqual(0.03);
  });

  it('counts a visitor seen again once, and merges sketches as a union', () => {
    const a = sketchOf(5_000, finePrecision);
    const again = emptyRegisters(finePrecision);
    mergeFine(again, [...Array.from({ length: 5_000 }, (_, i) => register(i)), ...Array.from({ length: 5_000 }, (_, i) => register(i))]);
    expect(again).toEqual(a);
    const b = sketchOf(5_000, finePrecision, 'b');
    mergeRegisters(a, b);
    expect(Math.abs(estimate(a) - 10_000) / 10_000).toBeLessThanOrEqual(0.03);
  });

  it('folds fine registers into the coarse sketch that hashing at the coarse precision makes', () => {
    for (let i = 0; i < 2_000; i++) {
      const digest = createHash('sha256').update(`fold ${i}`).digest();
      const [high, low] = [digest.readUInt32BE(0), digest.readUInt32BE(4)];
      const index = high >>> (32 - coarsePrecision);
      // The rank at the coarse precision, counted bit by bit over the 54 bits after its index.
      const bits = (BigInt(high) << 32n) | BigInt(low);
      let rank = 1;
      while (rank <= 64 - coarsePrecision && ((bits >> BigInt(64 - coarsePrecision - rank)) & 1n) === 0n) rank++;
      expect(folded(registerOf(high, low), coarsePrecision)).toEqual([index, Math.min(rank, 64 - finePrecision + 1 + finePrecision - coarsePrecision)]);
    }
  });

  it('estimates 10,000 distinct visitors within ±10 % from the coarse hourly sketch', () => {
    expect(Math.abs(estimate(sketchOf(10_000, coarsePrecision)) - 10_000) / 10_000).toBeLessThanOrEqual(0.1);
  });
});
