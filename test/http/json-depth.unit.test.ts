import { describe, expect, it } from 'vitest';
import { exceedsMaxJsonDepth, maxJsonDepth } from '../../src/http/json-depth';

const nested = (depth: number) => `{"root":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('exceedsMaxJsonDepth', () => {
  it.each([
    ['a scalar', '"text"', false],
    ['an empty object', '{}', false],
    [`${maxJsonDepth} levels`, nested(maxJsonDepth), false],
    [`${maxJsonDepth + 1} levels`, nested(maxJsonDepth + 1), true],
    ['siblings at the limit', `[${nested(maxJsonDepth - 1)},${nested(maxJsonDepth - 1)}]`, false],
    ['brackets inside strings', JSON.stringify({ root: '['.repeat(1000), b: '{'.repeat(1000) }), false],
    ['escaped quotes inside strings', JSON.stringify({ root: `\\"${'['.repeat(1000)}` }), false],
    ['100,000 levels', '['.repeat(100_000), true],
  ])('%s', (_, text, expected) => {
    expect(exceedsMaxJsonDepth(text)).toBe(expected);
  });
});
