/**
 * A least-recently-used cache bounded by a total weight (for example file entries), so one
 * large site or many small ones fit the same memory budget. Hand-written: a Map already
 * iterates in insertion order, which is all an LRU needs, and weights keep it to a few lines.
 */
export class WeightedLru<K, V> {
  readonly #items = new Map<K, { value: V; weight: number }>();
  #weight = 0;
  /** The most recently used key, while it is held: the Map's last. */
  #newest: K | undefined;

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const item = this.#items.get(key);
    if (!item) return undefined;
    // A hot key is asked for again and again (a member's cookie, a site's deployment): moving the
    // newest to the end would change nothing, while the Map shrinks its table on the delete and
    // grows it again on the set.
    if (key !== this.#newest) {
      this.#items.delete(key);
      this.#items.set(key, item);
      this.#newest = key;
    }
    return item.value;
  }

  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    this.#items.set(key, { value, weight });
    this.#newest = key;
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
    if (key === this.#newest) this.#newest = undefined;
  }
}
