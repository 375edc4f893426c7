import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sparkline } from '../../cli/sparkline';
import { fuzzParameters } from '../fuzz/settings';

describe('sparkline', () => {
  it('scales from zero to the peak, and draws any traffic above the bar of none', () => {
    expect(sparkline([0, 1, 700, 350, 0])).toBe('▁▂█▅▁');
    expect(sparkline([5, 5])).toBe('██');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([])).toBe('');
  });

  it('sums neighbouring values to fit its width', () => {
    expect(sparkline([1, 1, 0, 0, 0, 4], 3)).toBe('▅▁█');
  });

  it('is never wider than asked, and marks a column with traffic apart from one without', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000_000), { maxLength: 900 }), fc.integer({ min: 1, max: 100 }), (values, width) => {
        const line = [...sparkline(values, width)];
        expect(line.length).toBeLessThanOrEqual(width);
        const perColumn = Math.max(1, Math.ceil(values.length / width));
        line.forEach((bar, column) => {
          const sum = values.slice(column * perColumn, (column + 1) * perColumn).reduce((a, b) => a + b, 0);
          expect(bar === '▁').toBe(sum === 0);
        });
      }),
      fuzzParameters(200),
    );
  });
});
