import { describe, expect, it } from 'vitest';
import { pathTemplate } from '../../src/rules/path-template';
import { PathRules } from '../../src/rules/path-rules';
import { parseRequestPath } from '../../src/http/request-path';

/** A real template that counts how often it is matched against a request path. */
function counted(source: string, counter: { matches: number }) {
  const template = pathTemplate(source);
  return {
    literal: template.literal,
    match: (path: Parameters<typeof template.match>[0]) => {
      counter.matches += 1;
      return template.match(path);
    },
  };
}

describe('path rules', () => {
  const statics = 2_000;
  const templated = 100;
  const counter = { matches: 0 };
  // Plain paths first, then templated ones, then one more plain path behind them all.
  const rules = new PathRules([
    ...Array.from({ length: statics }, (_, i) => ({ template: counted(`/s${i}`, counter), rule: `static ${i}` })),
    ...Array.from({ length: templated }, (_, i) => ({ template: counted(`/t${i}/{+rest}`, counter), rule: `templated ${i}` })),
    { template: counted('/t7/shadowed', counter), rule: 'shadowed static' },
  ]);
  const longTail = `/${'x'.repeat(3000)}`;

  it('finds a plain path by key, trying no template, wherever it stands among thousands', () => {
    for (const i of [0, 1_000, statics - 1]) {
      counter.matches = 0;
      expect(rules.first(parseRequestPath(`/s${i}`))?.rule).toBe(`static ${i}`);
      expect(counter.matches).toBe(0);
    }
  });

  it('tries only the templated rules for a path that matches none, however long it is', () => {
    counter.matches = 0;
    expect(rules.first(parseRequestPath(`/nothing${longTail}`))).toBeUndefined();
    expect(counter.matches).toBe(templated);
  });

  it('keeps the configured order between plain paths and templates', () => {
    const match = rules.first(parseRequestPath('/t7/shadowed'));
    expect(match).toEqual({ rule: 'templated 7', values: { rest: 'shadowed' } });
    const all = rules.all(parseRequestPath('/t7/shadowed'));
    expect(all.map(({ rule }) => rule)).toEqual(['templated 7', 'shadowed static']);
  });

  it('lets a plain path win over the templates behind it, trying only those before it', () => {
    const ordered = { matches: 0 };
    const mixed = new PathRules([
      { template: counted('/a/{x}', ordered), rule: 'a' },
      { template: counted('/exact', ordered), rule: 'exact' },
      { template: counted('/{x}', ordered), rule: 'any' },
    ]);
    expect(mixed.first(parseRequestPath('/exact'))?.rule).toBe('exact');
    expect(ordered.matches).toBe(1);
    expect(mixed.all(parseRequestPath('/exact')).map(({ rule }) => rule)).toEqual(['exact', 'any']);
  });

  it('applies a rule without a template to every path', () => {
    const everywhere = new PathRules([{ rule: 'all' }, { template: pathTemplate('/x'), rule: 'x' }]);
    expect(everywhere.all(parseRequestPath('/x')).map(({ rule }) => rule)).toEqual(['all', 'x']);
    expect(everywhere.all(parseRequestPath('/y')).map(({ rule }) => rule)).toEqual(['all']);
  });
});
