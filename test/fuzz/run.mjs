// `npm run fuzz`: the fuzz properties with many more runs than `npm test`, under a random seed
// printed first so that a failure can be replayed: FUZZ_SEED=<seed> npm run fuzz.
// FUZZ_RUNS sets the runs per property (default 1000); arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const seed = process.env.FUZZ_SEED || String(randomInt(2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS || '1000';
console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
const { status } = spawnSync('vitest', ['run', '--project', 'workers', 'test/fuzz', ...process.argv.slice(2)], {
  stdio: 'inherit',
  shell: process.platform === 'win32',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs },
});
if (status !== 0) console.log(`fuzz: failed; replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`);
process.exit(status ?? 1);
