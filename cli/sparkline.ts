const bars = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * `values` as one line of block characters, scaled from zero to the largest, at most `width`
 * wide (neighbouring values summed to fit). Zero alone is the lowest bar: any traffic shows at
 * least one step above it. Hand-written, a few lines: `sparkly` draws every value within the
 * lowest eighth of its scale with the bar of zero (a quiet hour would read as none), and would
 * bring chalk beside the CLI's picocolors.
 */
export function sparkline(values: readonly number[], width = 72): string {
  const perColumn = Math.max(1, Math.ceil(values.length / width));
  const columns: number[] = [];
  for (let start = 0; start < values.length; start += perColumn) {
    columns.push(values.slice(start, start + perColumn).reduce((sum, value) => sum + value, 0));
  }
  const peak = Math.max(0, ...columns);
  return columns.map((value) => (value <= 0 ? bars[0] : bars[Math.max(1, Math.ceil((value / peak) * (bars.length - 1)))])).join('');
}
