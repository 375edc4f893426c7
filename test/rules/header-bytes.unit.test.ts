import { describe, expect, it } from 'vitest';
import { configurationLimits } from '../../src/rules/configuration-limits';
import { checkHostConfiguration } from '../../src/configuration/parse';
import { Problem } from '../../src/http/problem';

const limit = configurationLimits.MAX_HEADER_BYTES;

/** The limit a configuration goes over, or undefined when it is accepted. */
function overLimit(configuration: unknown): unknown {
  try {
    checkHostConfiguration(configuration);
    return undefined;
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { status: error.status, ...error.options.extensions, pointer: (error.options.errors?.[0] as { pointer?: string } | undefined)?.pointer };
  }
}

/** A header rule whose one field takes `bytes` in a response: `name: value` and a line end. */
const fieldOf = (bytes: number) => ({ 'X-Policy': 'a'.repeat(bytes - 'X-Policy'.length - 4) });

describe('the header bytes rules can add to one response', () => {
  it('are counted for the response that gets most: rules for other plain paths never apply together', () => {
    const perPath = Array.from({ length: 100 }, (_, i) => ({ uri: `/page${i}`, fields: fieldOf(limit / 2) }));
    expect(overLimit({ headers: perPath })).toBeUndefined();
    expect(overLimit({ headers: [...perPath, { uri: '/page7', fields: fieldOf(limit / 2 + 1) }] })).toEqual({ status: 413, limit: 'MAX_HEADER_BYTES', value: limit, pointer: '/headers' });
  });

  it('count every rule for all paths and every templated rule, which may all apply to one request', () => {
    expect(overLimit({ headers: [{ fields: fieldOf(limit / 2) }, { uri: '/a/{x}', fields: fieldOf(limit / 2) }] })).toBeUndefined();
    expect(overLimit({ headers: [{ fields: fieldOf(limit / 2) }, { uri: '/a/{x}', fields: fieldOf(limit / 2 + 1) }] })).toMatchObject({ limit: 'MAX_HEADER_BYTES' });
  });

  it('count a variable at its longest expansion, once for each time a value uses it; braces that name no variable are text', () => {
    expect(overLimit({ headers: [{ uri: '/a/{x}', fields: { 'X-A': '{x}', 'X-B': '{x}' } }] })).toBeUndefined();
    expect(overLimit({ headers: [{ uri: '/a/{x}', fields: { 'X-A': '{x}', 'X-B': ['{x}', '{x}'] } }] })).toMatchObject({ limit: 'MAX_HEADER_BYTES' });
    expect(overLimit({ headers: [{ uri: '/a/{x}', fields: { 'X-A': ['{y}', '{y}', '{y}', '{z}'] } }] })).toBeUndefined();
  });

  it('count a redirect’s Location with the variables of its from', () => {
    expect(overLimit({ redirects: [{ from: '/a/{+x}', to: '/{+x}/{+x}' }] })).toBeUndefined();
    expect(overLimit({ redirects: [{ from: '/a/{+x}', to: '/{+x}/{+x}/{+x}' }] })).toEqual({ status: 413, limit: 'MAX_HEADER_BYTES', value: limit, pointer: '/redirects/0/to' });
    expect(overLimit({ redirects: [{ from: '/a', to: '/{+x}/{+x}/{+x}' }] })).toBeUndefined();
  });
});

describe('the variables of a template matched against request paths', () => {
  const variables = (count: number) => Array.from({ length: count }, (_, i) => `/{v${i}}`).join('');

  it(`are at most ${configurationLimits.MAX_TEMPLATE_VARIABLES} in a from or a uri, counting each of an expression's`, () => {
    const most = configurationLimits.MAX_TEMPLATE_VARIABLES;
    expect(overLimit({ redirects: [{ from: variables(most), to: '/y' }], headers: [{ uri: variables(most), fields: {} }] })).toBeUndefined();
    expect(overLimit({ redirects: [{ from: `{/a,b}${variables(most - 1)}`, to: '/y' }] })).toEqual({ status: 413, limit: 'MAX_TEMPLATE_VARIABLES', value: most, pointer: '/redirects/0/from' });
    expect(overLimit({ headers: [{ uri: variables(most + 1), fields: {} }] })).toMatchObject({ limit: 'MAX_TEMPLATE_VARIABLES', pointer: '/headers/0/uri' });
  });

  it('are not counted in a redirect target, which is only expanded', () => {
    expect(overLimit({ redirects: [{ from: '/a', to: variables(40) }] })).toBeUndefined();
  });
});
