import { describe, expect, it } from 'vitest';
import { configurationLimits } from '../../src/rules/configuration-limits';
import { checkHostConfiguration } from '../../src/configuration/parse';
import { maxPathLength } from '../../src/http/path-length';
import { hostOptionsOf } from '../../src/serving/host-options';
import type { MatchMeter } from '../../src/rules/path-scan';
import { pathTemplate } from '../../src/rules/path-template';
import { type RequestPath, decodedPath, parseRequestPath } from '../../src/http/request-path';

/**
 * What matching a site's rules costs, counted in the matcher's own steps (characters of the
 * path read, compared or split, and template parts visited), never in time.
 */

/** A path of exactly `maxPathLength` bytes: `unit` repeated after `/`, then `end`. */
function longPath(unit: string, end = ''): string {
  let path = '/';
  while (path.length + unit.length + end.length <= maxPathLength) path += unit;
  return path + 'x'.repeat(maxPathLength - path.length - end.length) + end;
}

/** The issue's path: `/b/b/…/c`, 4,096 bytes. */
const issuePath = `/${'b/'.repeat(2047)}c`;
const paths = [issuePath, longPath('a'), longPath('b/', '.c'), longPath(';a=b'), longPath('aab'), longPath('a.b-c/'), longPath(',x/')];

/** One plain rule: the path compared with a template that is the path itself, as a key lookup reads it. */
function plainRule(path: RequestPath): number {
  const meter = { steps: 0 };
  expect(pathTemplate(decodedPath(path)).match(path, meter)).toBeDefined();
  // It reads the whole path: the meter counts.
  expect(meter.steps).toBeGreaterThan(decodedPath(path).length);
  return meter.steps;
}

const many = (count: number, piece: (index: number) => string) => Array.from({ length: count }, (_, index) => piece(index)).join('');
const variables = configurationLimits.MAX_TEMPLATE_VARIABLES;

/** Templates within the limits, each written to make a match read as much as it can. */
const costly: Record<string, string> = {
  'the issue’s explode expression, repeated': '{/a*}'.repeat(variables),
  'distinct explode expressions': many(variables, (i) => `{/v${i}*}`),
  'a long literal between reserved expansions': `{+a}${'aab'.repeat(600)}c{+b}`,
  'lists of named items, twice': '{+f*,a:2}{.a,c*}{;b*,c:2,d:2}'.repeat(2),
  'optional prefixes after a span': `{+s}${many(variables - 1, (i) => `{${'.;?&'[i % 4]}p${i}}`)}`,
  'segments split on literals': many(variables, (i) => `{s${i}}-`),
  'a span between literals read from both ends': `{a}/{b}${'ab'.repeat(300)}{+s}${'ba'.repeat(300)}{c}/{d}`,
};

function stepsOf(template: string, path: RequestPath): number {
  const meter = { steps: 0 };
  pathTemplate(template).match(path, meter);
  return meter.steps;
}

describe('the cost of matching a request path against templated rules', () => {
  it.each(Object.entries(costly))('%s: within the limits, and at most 5× one plain rule on every 4,096-byte path', (_, template) => {
    expect(() => checkHostConfiguration({ redirects: [{ from: template, to: '/y' }] })).not.toThrow();
    for (const raw of paths) {
      const path = parseRequestPath(raw);
      expect(raw).toHaveLength(maxPathLength);
      expect(stepsOf(template, path), `${template} on ${raw.slice(0, 20)}…`).toBeLessThanOrEqual(5 * plainRule(path));
    }
  });

  it('the issue’s configuration, as a site saved before the limit: 10 rules of 409 explode expressions cost at most 5× one plain rule each', () => {
    const from = '{/a*}'.repeat(409);
    const host = hostOptionsOf({ redirects: Array.from({ length: 10 }, () => ({ from, to: '/y' })), headers: [{ uri: from, fields: { 'X-A': 'a' } }] });
    const path = parseRequestPath(issuePath);
    const meter: MatchMeter = { steps: 0 };
    expect(host.redirects.first(path, meter)).toBeUndefined();
    expect(host.headers.all(path, meter)).toEqual([]);
    expect(meter.steps).toBeLessThanOrEqual(11 * 5 * plainRule(path));
  });

  it('the worst configuration the limits allow costs at most 5× one plain rule for each of its templated rules', () => {
    const rules = configurationLimits.MAX_TEMPLATED_REDIRECT_RULES;
    for (const raw of paths) {
      const path = parseRequestPath(raw);
      // The costliest template for this path, in every templated rule the limits allow.
      const [worst] = Object.values(costly)
        .map((template) => ({ template, steps: stepsOf(template, path) }))
        .sort((a, b) => b.steps - a.steps)
        .map(({ template }) => template);
      const configuration = checkHostConfiguration({
        redirects: Array.from({ length: rules }, () => ({ from: worst!, to: '/y' })),
        headers: Array.from({ length: configurationLimits.MAX_TEMPLATED_HEADER_RULES }, () => ({ uri: worst!, fields: { 'X-A': 'a' } })),
      });
      const host = hostOptionsOf(configuration);
      const meter: MatchMeter = { steps: 0 };
      host.redirects.first(path, meter);
      host.headers.all(path, meter);
      const templated = rules + configurationLimits.MAX_TEMPLATED_HEADER_RULES;
      expect(meter.steps, raw.slice(0, 20)).toBeLessThanOrEqual(templated * 5 * plainRule(path));
    }
  });
});
