import type { Parameters } from 'fast-check';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** FUZZ_SEED, passed in by vitest.config.ts: empty in `npm test`. */
    fuzzSeed: string;
    /** FUZZ_RUNS, passed in by vitest.config.ts: empty in `npm test`. */
    fuzzRuns: string;
  }
}

/** `npm test` replays the same cases on every run: a failure there is never a fluke of the seed. */
const defaultSeed = 20_260_115;

const seed = inject('fuzzSeed') === '' ? defaultSeed : Number(inject('fuzzSeed'));
const runs = inject('fuzzRuns') === '' ? undefined : Number(inject('fuzzRuns'));

/** How long one request may take, answer body included, before it counts as a hang. */
export const answerWithinMs = 10_000;

/**
 * fast-check's parameters for a property: `defaultRuns` keeps `npm test` short (a request
 * costs a few milliseconds to tens of milliseconds); `npm run fuzz` sets FUZZ_RUNS for all.
 * `salt` gives properties that share a generator different cases from the same seed.
 */
export function fuzzParameters<T>(defaultRuns: number, salt = 0): Parameters<T> {
  return { seed: seed + salt, numRuns: runs ?? defaultRuns };
}

/** A test's time limit that grows with the number of runs (vitest's 60 s suits `npm test`). */
export function fuzzTimeout(defaultRuns: number, msPerRun = 500): number {
  return Math.max(60_000, (runs ?? defaultRuns) * msPerRun);
}
