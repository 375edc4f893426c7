// The statistics the benches share: a ratio's median with an interval that says what a run resolves.

import { percentile } from './edge/serving.mjs';

/** The median of `values`. */
export const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);

/**
 * The median of `ratios`, its spread (first to third quartile) and a 95 % interval for the median
 * (distribution-free, from order statistics), printed; `unit` names what one ratio came from.
 */
export function ratioSummary(ratios, unit = 'cycles') {
  const sorted = [...ratios].sort((a, b) => a - b);
  const n = sorted.length;
  // The k-th smallest and k-th largest (k counted from 1), k = n/2 − 1.96·√n/2 rounded down.
  const k = Math.max(1, Math.floor(n / 2 - 0.98 * Math.sqrt(n)));
  const [low, high] = [sorted[k - 1], sorted[n - k]];
  return {
    median: median(sorted),
    low,
    high,
    text: `median ${median(sorted).toFixed(3)} (95 % interval of the median ${low.toFixed(3)}–${high.toFixed(3)}; quartiles ${percentile(sorted, 0.25).toFixed(3)}–${percentile(sorted, 0.75).toFixed(3)}; ${n} ${unit})`,
  };
}

/**
 * The centre of paired `ratios` whose spread has long tails (a short block that met a garbage
 * collection, or the machine's other work): the Hodges–Lehmann estimate on their logarithms (the
 * median of the means of every two, each with itself included) with its 95 % interval from
 * Wilcoxon's signed-rank order statistics, distribution-free for logs symmetric about their
 * centre, and the ratios' quartiles. Its interval needs about two thirds of the ratios the
 * median's does (efficiency 0.95 of the mean's for normal logs, the median's 0.64), and an
 * outlier moves it little. `unit` names what one ratio came from.
 */
export function ratioCentre(ratios, unit = 'cycles') {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const means = [];
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) means.push((logs[i] + logs[j]) / 2);
  means.sort((a, b) => a - b);
  // The k-th smallest and k-th largest of the n(n+1)/2 means, k from the signed-rank statistic's normal approximation.
  const k = Math.max(1, Math.floor(n * (n + 1) / 4 - 1.96 * Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24)));
  const [centre, low, high] = [median(means), means[k - 1], means[means.length - k]].map(Math.exp);
  const sorted = [...ratios].sort((a, b) => a - b);
  return {
    centre,
    low,
    high,
    text: `${centre.toFixed(3)} (95 % interval ${low.toFixed(3)}–${high.toFixed(3)}, Hodges–Lehmann; quartiles ${percentile(sorted, 0.25).toFixed(3)}–${percentile(sorted, 0.75).toFixed(3)}; ${n} ${unit})`,
  };
}

/**
 * How far from 1 an A/A's ratios (two identical things measured alike) may come out: the wider
 * side of the interval `ratioSummary` or `ratioCentre` gives them. A ratio nearer 1 than this is
 * within the instrument's noise.
 */
export const resolutionOf = (aa) => Math.max(1 - aa.low, aa.high - 1);

/**
 * The verdict on `ratio` (as `ratioCentre` gives it) against `atLeast`, measured beside the A/A
 * `aa`: met when the A/A resolves better than `resolves` and the ratio's interval lies at or above
 * `atLeast`. When not, `why` (to append to the figure) says which: an instrument too coarse, a cost
 * of `what` above the margin, or an interval reaching below it.
 */
export function verdictOf(ratio, aa, { atLeast, resolves, what }) {
  const resolution = resolutionOf(aa);
  if (resolution >= resolves) return { met: false, why: `; the A/A resolved ±${(100 * resolution).toFixed(1)} % only: more cycles (BENCH_CYCLES) or a quieter machine` };
  if (ratio.low >= atLeast) return { met: true, why: '' };
  if (ratio.high < atLeast) return { met: false, why: `; ${what} costs more than ${Math.round(100 * (1 - atLeast))} %` };
  return { met: false, why: `; its interval reaches below ${atLeast.toFixed(2)}` };
}

/** Every order of `items`: taking them in turn puts each item first, in the middle and last equally often. */
export function everyOrder(items) {
  return items.length <= 1 ? [items] : items.flatMap((item, i) => everyOrder(items.filter((_, j) => j !== i)).map((rest) => [item, ...rest]));
}
