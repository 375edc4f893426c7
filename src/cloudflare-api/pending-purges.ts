/**
 * URLs waiting for a purge request, in the account object's storage: whatever stops the object,
 * none is dropped; each stays until a request that carries it has been accepted. A URL asked
 * for twice is purged once, by a request sent after the later ask: a request already on its way
 * may reach Cloudflare before what the later ask purges was stored.
 */

const purgePrefix = 'purge/';

export interface PurgeEntry {
  url: string;
  /** The latest ask for this URL, in asking order. */
  seq: number;
}

/** One ask: settled once every URL in it was in an accepted request sent after it. */
interface Waiter {
  seq: number;
  remaining: Set<string>;
  accepted: () => void;
}

export class PendingPurges {
  /** By URL, in the order first asked: the oldest go first. */
  readonly #entries = new Map<string, number>();
  readonly #inFlight = new Set<string>();
  readonly #waiters = new Set<Waiter>();
  #seq: number;

  constructor(private readonly kv: SyncKvStorage) {
    let last = 0;
    for (const [key, seq] of kv.list<number>({ prefix: purgePrefix })) {
      this.#entries.set(key.slice(purgePrefix.length), seq);
      last = Math.max(last, seq);
    }
    this.#seq = last;
  }

  /** URLs waiting and not on their way. */
  get waiting(): number {
    return this.#entries.size - this.#inFlight.size;
  }

  /** Stores `urls`; the promise settles once they are purged, `cancel` forgets the promise (not the URLs). */
  add(urls: readonly string[]): { purged: Promise<void>; cancel: () => void } {
    const seq = ++this.#seq;
    for (const url of urls) {
      this.#entries.set(url, seq);
      this.kv.put(purgePrefix + url, seq);
    }
    let waiter: Waiter | undefined;
    const purged = new Promise<void>((accepted) => {
      waiter = { seq, remaining: new Set(urls), accepted };
    });
    if (urls.length === 0) waiter!.accepted();
    else this.#waiters.add(waiter!);
    return { purged, cancel: () => this.#waiters.delete(waiter!) };
  }

  /**
   * The oldest `max` URLs not already on their way, now on their way: first those a change waits
   * for (its answer does), then those handed over without waiting (the records of collected
   * deployments), so that these never hold a change back.
   */
  take(max: number): PurgeEntry[] {
    const awaited = new Set([...this.#waiters].flatMap((waiter) => [...waiter.remaining]));
    const batch: PurgeEntry[] = [];
    for (const urgent of [true, false]) {
      for (const [url, seq] of this.#entries) {
        if (batch.length === max) return batch;
        if (this.#inFlight.has(url) || awaited.has(url) !== urgent) continue;
        batch.push({ url, seq });
        this.#inFlight.add(url);
      }
    }
    return batch;
  }

  /** Cloudflare accepted `batch`: URLs not asked for again since are done, and the asks it covers settle. */
  accepted(batch: readonly PurgeEntry[]): void {
    const sent = new Map(batch.map((entry) => [entry.url, entry.seq]));
    for (const { url, seq } of batch) {
      this.#inFlight.delete(url);
      if (this.#entries.get(url) === seq) {
        this.#entries.delete(url);
        this.kv.delete(purgePrefix + url);
      }
    }
    for (const waiter of this.#waiters) {
      for (const url of waiter.remaining) if ((sent.get(url) ?? -1) >= waiter.seq) waiter.remaining.delete(url);
      if (waiter.remaining.size === 0) {
        this.#waiters.delete(waiter);
        waiter.accepted();
      }
    }
  }

  /** `batch` was not accepted: it waits again, in its place. */
  refused(batch: readonly PurgeEntry[]): void {
    for (const { url } of batch) this.#inFlight.delete(url);
  }
}
