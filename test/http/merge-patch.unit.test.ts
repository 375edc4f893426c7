import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../src/http/merge-patch';
import { fuzzParameters } from '../fuzz/settings';

/** JSON text as a client sends it: JSON.parse makes `__proto__` an own key, like any other. */
const parse = (text: string): unknown => JSON.parse(text);

describe('applyMergePatch', () => {
  // RFC 7396 Appendix A, then the keys a plain assignment would treat specially.
  it.each([
    ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
    ['{"a":"b"}', '{"a":null}', '{}'],
    ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
    ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
    ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
    ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
    ['["a","b"]', '["c","d"]', '["c","d"]'],
    ['{"a":"b"}', '["c"]', '["c"]'],
    ['{"a":"foo"}', 'null', 'null'],
    ['{"a":"foo"}', '"bar"', '"bar"'],
    ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
    ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
    ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
    ['{}', '{"__proto__":{"x":"1"}}', '{"__proto__":{"x":"1"}}'],
    ['{"__proto__":{"x":"1"}}', '{"__proto__":{"y":"2"}}', '{"__proto__":{"x":"1","y":"2"}}'],
    ['{"__proto__":{"x":"1"},"a":"b"}', '{"__proto__":null}', '{"a":"b"}'],
    ['{"a":"b"}', '{"__proto__":null}', '{"a":"b"}'],
    ['{}', '{"__proto__":"1"}', '{"__proto__":"1"}'],
    ['{}', '{"constructor":{"prototype":{"x":"1"}}}', '{"constructor":{"prototype":{"x":"1"}}}'],
    ['{}', '{"constructor":"c","toString":"t","hasOwnProperty":"h"}', '{"constructor":"c","toString":"t","hasOwnProperty":"h"}'],
    ['{"constructor":"c"}', '{"constructor":null}', '{}'],
  ])('%s patched with %s is %s', (target, patch, expected) => {
    const result = applyMergePatch(parse(target), parse(patch));
    expect(JSON.stringify(result)).toBe(JSON.stringify(parse(expected)));
    expectPlainData(result);
  });

  it('sets no prototype and pollutes nothing', () => {
    const result = applyMergePatch({}, parse('{"__proto__":{"polluted":"yes"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect('polluted' in result).toBe(false);
    expect('polluted' in {}).toBe(false);
  });

  it('does not mutate its target', () => {
    const target = parse('{"a":{"b":"c"},"__proto__":{"x":"1"}}');
    const before = JSON.stringify(target);
    applyMergePatch(target, parse('{"a":{"b":null},"__proto__":{"x":null}}'));
    expect(JSON.stringify(target)).toBe(before);
  });

  // The merged record crosses Durable Object RPC: it must be plain data that survives a clone.
  it('always yields plain JSON data, whatever the member names', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a'), fc.string());
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.string(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    // Through JSON text, as clients send documents: JSON.parse decides what a member is.
    const document = json.map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    fc.assert(
      fc.property(document, document, (target, patch) => {
        const result = applyMergePatch(target, patch);
        expectPlainData(result);
        expect(JSON.stringify(structuredClone(result))).toBe(JSON.stringify(result));
      }),
      fuzzParameters(500),
    );
  });
});

/**
 * Every object is a plain Object or Array. (Compared as JSON text elsewhere: vitest's equality
 * reads a `constructor` member as the object's class.)
 */
function expectPlainData(value: unknown): void {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null) continue;
    expect(Object.getPrototypeOf(item)).toBe(Array.isArray(item) ? Array.prototype : Object.prototype);
    pending.push(...Object.values(item));
  }
}
