// What every bench shares: its mode, its settings and how it prints a target.
//
// Quick mode (`BENCH_QUICK=1`, or `npm run bench:<name> -- --quick`) runs the same code on small
// sizes and few runs. It shows that a bench runs and prints its targets (`npm run bench:quick`
// runs them all, and .ci/run runs that), not whether they are met: that takes the full sizes and a
// quiet machine. A BENCH_* variable set by hand wins over either mode's default.
//
// A target is one line ending `(target <goal>: met)` or `(target <goal>: MISSED)`: `target()`
// prints it, and bench/quick.mjs counts them (`targetLinesOf`). In quick mode a bench
// exits 0 when it only missed targets; a crash exits non-zero in either mode.

export const quick = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');

/** A number: the environment variable `name` when set, else the quick mode's default or the full one. */
export function setting(name, full, small = full) {
  const value = process.env[name];
  return value === undefined || value === '' ? (quick ? small : full) : Number(value);
}

/** A comma-separated list of numbers, as `setting`. */
export function listSetting(name, full, small = full) {
  const value = process.env[name];
  return value === undefined || value === '' ? (quick ? small : full) : value.split(',').map(Number);
}

/** What a target line looks like. */
const targetLine = /\(target .+: (met|MISSED)\)$/;

/** The target lines of a bench's output, trimmed. */
export function targetLinesOf(output) {
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => targetLine.test(line));
}

/** Why a quick run failed, from how it exited and what it printed; undefined when it ran and printed a target line. */
export function quickRunProblem({ code, signal, output }) {
  if (code !== 0) return `exited with ${signal ?? code}`;
  if (targetLinesOf(output).length === 0) return 'printed no target line';
  return undefined;
}

/** Prints `<figure> (target <goal>: met|MISSED)`; answers whether it was met. */
export function target(figure, goal, met) {
  console.log(`${figure} (target ${goal}: ${met ? 'met' : 'MISSED'})`);
  return met;
}

/** The first words of a bench's report: which mode it runs in. */
export function announce(name) {
  if (quick) console.log(`${name}: quick mode: it shows that the bench runs and prints its targets, not whether they are met.`);
}
