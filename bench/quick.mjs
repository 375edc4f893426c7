// `npm run bench:quick`: every bench (each `bench:*` script of package.json) in its quick mode
// (bench/mode.mjs), two at a time (BENCH_QUICK_JOBS), as .ci/run does after `npm test`: quick
// runs measure nothing, and most of their time is waiting on servers. Fails when a bench
// crashes (exits non-zero) or prints no target line; a target it misses is fine here, since a
// quick run on a busy machine measures nothing. Prints each bench's target lines and time, and
// writes its whole output to test-results/bench-quick/<name>.log. Names given as arguments
// (`npm run bench:quick -- edge serve`) run only those benches.
//
// The serving bench drives Debian's wrk and nginx, installed here when missing
// (scripts/debian-tools.mjs), as `npm test` installs what the tests drive.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianTools } from '../scripts/debian-tools.mjs';
import { quickRunProblem, targetLinesOf } from './mode.mjs';

const repo = new URL('..', import.meta.url).pathname;
/** The whole run's budget on the project's 2-core machine (CONTRIBUTING.md, "Benches"): reported, never a failure. */
const budgetSeconds = 90;
/** A budget only for a hang: a bench still running after it is stopped, and fails. */
const hangSeconds = 600;
const logs = join(repo, 'test-results/bench-quick');
const jobs = Number(process.env.BENCH_QUICK_JOBS ?? 2);

const scripts = Object.keys(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).scripts);
const all = scripts.filter((name) => name.startsWith('bench:') && name !== 'bench:quick');
const asked = process.argv.slice(2).map((name) => (name.startsWith('bench:') ? name : `bench:${name}`));
const unknown = asked.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`No such bench: ${unknown.join(', ')} (there are ${all.join(', ')}).`);
  process.exit(1);
}
const benches = asked.length > 0 ? asked : all;

if (benches.includes('bench:serve')) {
  ensureDebianTools(
    [
      { binary: 'wrk', debianPackage: 'wrk' },
      { binary: 'nginx', debianPackage: 'nginx-light' },
    ],
    'The serving bench',
  );
}

/** Runs `npm run <name>` in quick mode in a process group of its own: its exit code (or signal), output and seconds. */
function run(name) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', name], {
      cwd: repo,
      env: { ...process.env, BENCH_QUICK: '1', NO_COLOR: '1', FORCE_COLOR: '0', WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    const hang = setTimeout(() => {
      output += `\nbench:quick: still running after ${hangSeconds} s: stopped.\n`;
      process.kill(-child.pid, 'SIGKILL');
    }, hangSeconds * 1000);
    child.on('error', (error) => (output += `\n${error}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(hang);
      resolve({ code, signal, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** Prints a bench's result in one piece (benches run side by side); answers whether it ran and printed its targets. */
function report(name, { code, signal, output, seconds }) {
  writeFileSync(join(logs, `${name.slice('bench:'.length)}.log`), output);
  const targets = targetLinesOf(output);
  const missed = targets.filter((line) => line.endsWith('MISSED)')).length;
  const problem = quickRunProblem({ code, signal, output });
  const lines = [`\n${name} (quick mode)`, ...targets.map((line) => `  ${line}`)];
  if (problem) lines.push(`${name}: FAILED, ${problem} after ${seconds.toFixed(1)} s; its last lines:`, ...output.trimEnd().split('\n').slice(-30));
  else lines.push(`${name}: ran in ${seconds.toFixed(1)} s, ${targets.length} target lines (${missed} missed, fine in quick mode)`);
  console.log(lines.join('\n'));
  return problem === undefined;
}

mkdirSync(logs, { recursive: true });
const started = performance.now();
const failed = [];
const queue = [...benches];
const lane = async () => {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (!report(name, await run(name))) failed.push(name);
  }
};
await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, benches.length)) }, lane));
const elapsed = (performance.now() - started) / 1000;
console.log(`\nbench:quick: ${benches.length - failed.length} of ${benches.length} benches ran and printed their targets${failed.length ? `; failed: ${failed.join(', ')}` : ''} (whole output in ${logs})`);
console.log(`bench:quick: ${elapsed.toFixed(0)} s (budget ${budgetSeconds} s: ${elapsed <= budgetSeconds ? 'met' : 'MISSED'})`);
if (failed.length > 0) process.exitCode = 1;
