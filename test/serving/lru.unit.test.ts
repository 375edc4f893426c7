import { describe, expect, it } from 'vitest';
import { WeightedLru } from '../../src/serving/lru';

describe('WeightedLru', () => {
  it('lets the least recently used go first, a key asked for twice in a row included', () => {
    const lru = new WeightedLru<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1);
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([1, 3, 4]);
  });

  it('moves a deleted and re-added newest key like any other', () => {
    const lru = new WeightedLru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.delete('b');
    lru.set('b', 3);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 4);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 4]);
  });

  it('keeps to its capacity by weight', () => {
    const lru = new WeightedLru<string, string>(10);
    lru.set('small', 's', 4);
    lru.set('large', 'l', 7);
    expect([lru.get('small'), lru.get('large')]).toEqual([undefined, 'l']);
  });
});
