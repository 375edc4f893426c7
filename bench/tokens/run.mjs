// `npm run bench:tokens`: what checking a bearer token costs (docs/design.md, "API tokens").
//
// Runs test/auth/token-cost.test.ts in the local Workers runtime (workerd, local D1 and Cache
// API): 200 requests of one API token, of one JWT, and of an API token with the location cache
// off (API_TOKEN_CHECK_SECONDS=0), counting the D1 calls each made through the bindings and
// timing them. Prints one line per target; exits non-zero when the run fails or a target is missed.
// Already small: quick mode (bench/mode.mjs) runs the same, and exits 0 when a target is missed.
import { spawnSync } from 'node:child_process';
import { announce, quick, targetLinesOf } from '../mode.mjs';

const repo = new URL('../..', import.meta.url).pathname;
announce('bench:tokens');
const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'workers', 'test/auth/token-cost.test.ts'], {
  cwd: repo,
  encoding: 'utf8',
  env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
});
const output = `${run.stdout}${run.stderr}`;
const targets = targetLinesOf(output);
for (const line of targets) console.log(line);
if (run.status !== 0 || targets.length === 0 || (!quick && targets.some((line) => line.endsWith('MISSED)')))) {
  if (run.status !== 0) console.error(output);
  process.exit(1);
}
