// `npm run test:durations`: keeps each test file's duration from the last full run's JSON report
// (test-results/vitest.json, which .ci/run writes) in test/support/file-durations.json, the order a
// fresh clone starts its files in (test/support/interleaved-sequencer.ts). Run it after a full run
// when files were added or got much slower, and commit the result.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const report = JSON.parse(readFileSync(new URL('../test-results/vitest.json', import.meta.url), 'utf8'));
const durations = Object.fromEntries(
  report.testResults
    .map(({ name, startTime, endTime }) => [relative(root, name), Math.round(endTime - startTime)])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(new URL('../test/support/file-durations.json', import.meta.url), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/support/file-durations.json: ${Object.keys(durations).length} files`);
