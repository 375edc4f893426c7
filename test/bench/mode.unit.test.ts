/**
 * How `npm run bench:quick` (bench/quick.mjs) judges a bench's quick run: it fails when the bench
 * crashed or printed no target line; a missed target is fine.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module of the benches, without type declarations.
import { quickRunProblem, targetLinesOf } from '../../bench/mode.mjs';

type Run = { code: number | null; signal: string | null; output: string };
const problemOf = quickRunProblem as (run: Run) => string | undefined;
const linesOf = targetLinesOf as (output: string) => string[];

const report = ['serving…', 'Added latency p50: 0 ms (target < 5 ms: met)', '  worst CPU per request: 46.5 ms (target <= 10 ms: MISSED)', ''].join('\n');

describe('a quick run', () => {
  it('passes when it exited 0 and printed target lines, met or missed', () => {
    expect(linesOf(report)).toEqual(['Added latency p50: 0 ms (target < 5 ms: met)', 'worst CPU per request: 46.5 ms (target <= 10 ms: MISSED)']);
    expect(problemOf({ code: 0, signal: null, output: report })).toBeUndefined();
  });

  it('fails when it crashed, whatever it printed before', () => {
    expect(problemOf({ code: 1, signal: null, output: `${report}TypeError: x is undefined\n` })).toBe('exited with 1');
    expect(problemOf({ code: null, signal: 'SIGKILL', output: report })).toBe('exited with SIGKILL');
  });

  it('fails when it printed no target line', () => {
    const untargeted = ['service / static-assets: 1.17 (target >= 1.00)', 'deploy wall time 1.81 s', 'the target: met'].join('\n');
    expect(linesOf(untargeted)).toEqual([]);
    expect(problemOf({ code: 0, signal: null, output: untargeted })).toBe('printed no target line');
  });
});
