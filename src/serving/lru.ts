/**
 * A least-recently-used cache bounded by a total weight (for example file entries), so one
 * large site or many small ones fit the same memory budget. Hand-written: a Map already
 * iterates in insertion order, which is all an LRU needs, and weights keep it to a few lines.
 */
export class WeightedLru<K, V> {
  readonly #items = new Map<K, { value: V; weight: number }>();
  #weight = 0;

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const item = this.#items.get(key);
    if (!item) return undefined;
    this.#items.delete(key);
    this.#items.set(key, item);
    return item.value;
  }

  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    this.#items.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, item] of this.#items) {
      if (this.#weight <= this.capacity || oldest === key) break;
      this.#items.delete(oldest);
      this.#weight -= item.weight;
    }
  }

  delete(key: K): void {
    const item = this.#items.get(key);
    if (!item) return;
    this.#items.delete(key);
    this.#weight -= item.weight;
  }
}
