// `npm run bench:rules`: what matching a site's templated rules costs one request, at the worst
// the limits allow, next to a site with one plain rule.
//
// Runs the service's own rule matching (src/serving/host-options.ts, bundled with esbuild) in
// this Node process, on the 4,096-byte path `/b/b/…/c` (the path that once made 10 rules of
// 409 `{/a*}` take 9.5 s). Configurations:
//   worst     for each of test/rules/rule-cost.unit.test.ts's costly templates (within the
//             limits), 200 templated redirect rules and 200 templated header rules of it;
//   pre-limit the 10 rules of 409 `{/a*}` as a site saved before MAX_TEMPLATE_VARIABLES has them;
//   plain     one redirect rule without variables (a key lookup).
// For each, BENCH_RULE_ROUNDS rounds (default 200) of one request's matching (redirects, then
// the header rules of a file answer); prints the median per request, the matcher's steps per
// templated rule against one plain rule's (the path read once), and one line per target:
// CPU per request at most 10 ms (the Workers Free plan's whole CPU budget for a request), steps
// per templated rule at most 5 times one plain rule's. Run it on a quiet machine. Quick mode
// (bench/mode.mjs): 5 rounds.
import { announce, setting, target } from '../mode.mjs';
import { importBundled } from './bundled.mjs';

const rounds = setting('BENCH_RULE_ROUNDS', 200, 5);
announce('bench:rules');
const { hostOptionsOf, parseRequestPath, decodedPath, pathTemplate } = await importBundled(`export { hostOptionsOf } from './src/serving/host-options';
export { parseRequestPath, decodedPath } from './src/http/request-path';
export { pathTemplate } from './src/rules/path-template';`);

const issuePath = `/${'b/'.repeat(2047)}c`;
const many = (count, piece) => Array.from({ length: count }, (_, index) => piece(index)).join('');
const costly = [
  '{/a*}'.repeat(16),
  many(16, (i) => `{/v${i}*}`),
  `{+a}${'aab'.repeat(600)}c{+b}`,
  '{+f*,a:2}{.a,c*}{;b*,c:2,d:2}'.repeat(2),
  `{+s}${many(15, (i) => `{${'.;?&'[i % 4]}p${i}}`)}`,
  many(16, (i) => `{s${i}}-`),
  `{a}/{b}${'ab'.repeat(300)}{+s}${'ba'.repeat(300)}{c}/{d}`,
];

const probe = parseRequestPath(issuePath);
const preLimit = '{/a*}'.repeat(409);
const configurations = {
  ...Object.fromEntries(
    costly.map((template, index) => [
      `worst ${index + 1}`,
      { redirects: Array.from({ length: 200 }, () => ({ from: template, to: '/y' })), headers: Array.from({ length: 200 }, () => ({ uri: template, fields: { 'X-A': 'a' } })) },
    ]),
  ),
  'pre-limit': { redirects: Array.from({ length: 10 }, () => ({ from: preLimit, to: '/y' })) },
  plain: { redirects: [{ from: '/old', to: '/new' }] },
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const plainMeter = { steps: 0 };
pathTemplate(decodedPath(probe)).match(probe, plainMeter);
const plainSteps = plainMeter.steps;
const results = {};
for (const [name, configuration] of Object.entries(configurations)) {
  const host = hostOptionsOf(configuration);
  const templated = [...(configuration.redirects ?? []), ...(configuration.headers ?? [])].filter((rule) => (rule.from ?? rule.uri).includes('{')).length;
  const times = [];
  let steps = 0;
  for (let round = 0; round < rounds; round += 1) {
    // A new path each round, as each request parses its own.
    const path = parseRequestPath(issuePath);
    const meter = { steps: 0 };
    const start = performance.now();
    host.redirects.first(path, meter);
    host.headers.all(path, meter);
    times.push(performance.now() - start);
    steps = meter.steps;
  }
  results[name] = { ms: median(times), perRule: templated > 0 ? steps / templated / plainSteps : 0 };
  const shown = name === 'plain' ? 'no templated rule' : `${templated} templated rules, ${(results[name].perRule).toFixed(2)}× one plain rule's steps each`;
  console.log(`${name.padEnd(10)} ${median(times).toFixed(3)} ms per request, ${shown}`);
}

const templatedResults = Object.entries(results).filter(([name]) => name !== 'plain');
const [slowest, { ms }] = templatedResults.sort((a, b) => b[1].ms - a[1].ms)[0];
target(`worst CPU per request (${slowest}): ${ms.toFixed(3)} ms`, '<= 10 ms', ms <= 10);
const ratio = Math.max(...templatedResults.map(([, result]) => result.perRule));
target(`steps per templated rule / one plain rule, at most: ${ratio.toFixed(2)}`, '<= 5', ratio <= 5);
