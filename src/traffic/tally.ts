/**
 * What one isolate counted since it last sent: counts per site, host kind, hour and deployment,
 * top lists within caps, and visitor sketches per site, host kind and hour. Memory is bounded by
 * the caps (distinct values per site and in all; more count as "other") and by the sends, which
 * happen before the batch outgrows a queue message (./counting.ts).
 */
import { type Counts, type HostKind, type SiteKey, type TallyEntry, type TrafficBatch, type VisitorEntry, emptyCounts, topLists } from './batch';
import { finePrecision } from './sketch';

/** One served request, as counted: nothing in it names the visitor. */
export interface Hit {
  site: SiteKey;
  host: HostKind;
  deployment: string;
  /** When it was answered (ms). */
  at: number;
  status: number;
  bytes: number;
  /** A GET answered 200 with `text/html`. */
  pageView: boolean;
  bot: boolean;
  path: string;
  /** The referring host, when another host referred. */
  referrer: string | null;
  country: string | null;
}

export interface TallyCaps {
  valuesPerSite: number;
  valuesTotal: number;
}

/** Queues take messages of up to 128 KB; a batch is split into messages of at most this many bytes of JSON. */
export const maxMessageBytes = 120_000;
/** Past this estimate the isolate sends before its interval is over. */
export const sendSoonerBytes = 96_000;

const hourMs = 3_600_000;
/** A sparse sketch turns dense (every register, 16,384 bytes, 21,848 in base64) once its list would be longer. */
const denseAfter = 2_700;

interface Bucket extends TallyEntry {
  values: Map<string, number>[];
}

type Sketch = Map<number, number> | Uint8Array;

export class Tally {
  #buckets = new Map<string, Bucket>();
  #sketches = new Map<string, { key: VisitorEntry; sketch: Sketch }>();
  #valuesBySite = new Map<string, number[]>();
  // Where the last request went: the next one most often goes there too (a busy site), found without building a key.
  #lastBucket: Bucket | undefined;
  #lastSketch: { key: VisitorEntry; sketch: Sketch } | undefined;
  #values = 0;
  #bytes = 0;

  constructor(private readonly caps: TallyCaps) {}

  get empty(): boolean {
    return this.#buckets.size === 0 && this.#sketches.size === 0;
  }

  /** About the size of the batch as JSON. */
  get approximateBytes(): number {
    return this.#bytes;
  }

  count(hit: Hit): void {
    const bucket = this.#bucket(hit);
    const { counts } = bucket;
    if (hit.bot) {
      counts[7]! += 1;
      if (hit.pageView) counts[8]! += 1;
      counts[9]! += hit.bytes;
      return;
    }
    counts[0]! += 1;
    if (hit.pageView) counts[1]! += 1;
    counts[2]! += hit.bytes;
    counts[3 + statusClass(hit.status)]! += 1;
    if (hit.pageView) this.#top(bucket, 0, hit.path);
    if (hit.referrer !== null) this.#top(bucket, 1, hit.referrer);
    this.#top(bucket, 2, hit.country ?? 'XX');
    if (hit.status === 404) this.#top(bucket, 3, hit.path);
  }

  /** Adds a visitor's fine register (`index * 64 + rank`) to the sketch of `site`'s `host` in the hour of `at`. */
  visit(site: SiteKey, host: HostKind, at: number, register: number): void {
    const hour = at - (at % hourMs);
    let held = this.#lastSketch;
    if (!held || held.key.hour !== hour || held.key.domain !== site.domain || held.key.claim !== site.claim || held.key.host !== host) {
      const name = `${site.domain} ${site.claim} ${host} ${hour}`;
      held = this.#sketches.get(name);
      if (!held) {
        held = { key: { domain: site.domain, claim: site.claim, host, hour, registers: [] }, sketch: new Map() };
        this.#sketches.set(name, held);
        this.#bytes += 100 + site.domain.length;
      }
      this.#lastSketch = held;
    }
    const index = register >>> 6;
    const rank = register & 63;
    const { sketch } = held;
    if (sketch instanceof Uint8Array) {
      if (rank > sketch[index]!) sketch[index] = rank;
      return;
    }
    const was = sketch.get(index);
    if (was !== undefined && was >= rank) return;
    sketch.set(index, rank);
    if (was !== undefined) return;
    this.#bytes += 8;
    if (sketch.size > denseAfter) {
      const dense = new Uint8Array(1 << finePrecision);
      for (const [i, r] of sketch) dense[i] = r;
      held.sketch = dense;
      this.#bytes += 22_000 - 8 * sketch.size;
    }
  }

  /** Everything counted, as batches of at most `maxMessageBytes` each; the tally starts over. */
  take(newId: () => string): TrafficBatch[] {
    const entries = [...this.#buckets.values()].map(({ values, ...entry }) => ({
      ...entry,
      tops: values.map((list) => [...list]),
    }));
    const visitors = [...this.#sketches.values()].map(({ key, sketch }) => ({ ...key, registers: encoded(sketch) }));
    this.#buckets.clear();
    this.#sketches.clear();
    this.#lastBucket = undefined;
    this.#lastSketch = undefined;
    this.#valuesBySite.clear();
    this.#values = 0;
    this.#bytes = 0;
    return split(entries, visitors, newId);
  }

  #bucket(hit: Hit): Bucket {
    const hour = hit.at - (hit.at % hourMs);
    const last = this.#lastBucket;
    if (last && last.hour === hour && last.domain === hit.site.domain && last.claim === hit.site.claim && last.host === hit.host && last.deployment === hit.deployment) return last;
    const name = `${hit.site.domain} ${hit.site.claim} ${hit.host} ${hour} ${hit.deployment}`;
    let bucket = this.#buckets.get(name);
    if (!bucket) {
      const counts: Counts = emptyCounts();
      bucket = { ...hit.site, host: hit.host, hour, deployment: hit.deployment, counts, tops: [], other: topLists.map(() => 0), values: topLists.map(() => new Map()) };
      this.#buckets.set(name, bucket);
      this.#bytes += 200 + hit.site.domain.length + hit.deployment.length;
    }
    this.#lastBucket = bucket;
    return bucket;
  }

  /** Counts `value` in list `list` of `bucket`, or as "other" once the site's or the isolate's cap is reached. */
  #top(bucket: Bucket, list: number, value: string): void {
    const values = bucket.values[list]!;
    const count = values.get(value);
    if (count !== undefined) {
      values.set(value, count + 1);
      return;
    }
    let held = this.#valuesBySite.get(bucket.domain);
    if (!held) this.#valuesBySite.set(bucket.domain, (held = topLists.map(() => 0)));
    if (held[list]! >= this.caps.valuesPerSite || this.#values >= this.caps.valuesTotal) {
      bucket.other[list]! += 1;
      return;
    }
    held[list]! += 1;
    this.#values += 1;
    this.#bytes += value.length + 16;
    values.set(value, 1);
  }
}

/** 0 for 1xx and 2xx, 1 for 3xx, 2 for 4xx, 3 for 5xx. */
function statusClass(status: number): number {
  return Math.min(Math.max(Math.floor(status / 100) - 2, 0), 3);
}

function encoded(sketch: Sketch): number[] | string {
  if (!(sketch instanceof Uint8Array)) return [...sketch].map(([index, rank]) => index * 64 + rank);
  let text = '';
  for (let i = 0; i < sketch.length; i += 4096) text += String.fromCharCode(...sketch.subarray(i, i + 4096));
  return btoa(text);
}

/** Packs entries and visitors into batches whose JSON stays under `maxMessageBytes`. */
function split(entries: TallyEntry[], visitors: VisitorEntry[], newId: () => string): TrafficBatch[] {
  const batches: TrafficBatch[] = [];
  let batch: TrafficBatch | undefined;
  let size = 0;
  const add = (item: TallyEntry | VisitorEntry, into: 'entries' | 'visitors') => {
    const bytes = JSON.stringify(item).length + 1;
    if (!batch || size + bytes > maxMessageBytes) {
      batch = { id: newId(), entries: [], visitors: [] };
      batches.push(batch);
      size = 100;
    }
    (batch[into] as (TallyEntry | VisitorEntry)[]).push(item);
    size += bytes;
  };
  for (const entry of entries) add(entry, 'entries');
  for (const entry of visitors) add(entry, 'visitors');
  return batches;
}
