/**
 * Visitors counted but not hashed yet (docs/analytics.md, "Unique visitors"): a request's address
 * and user agent wait here, in the isolate's memory only, until a batch of them is hashed in one
 * loop, and are dropped then. Why: hashed one request at a time, between serving's own work, the
 * visitor's SHA-256 took about 4 % of a counting isolate's busy time in a CPU profile under load,
 * though it takes 1.8 µs a visitor in a loop in workerd (most likely its code and data leaving
 * the processor's caches between requests); hashed 512 at a time, 0.4 to 0.6 %.
 *
 * Bounded: at most `capacity` visitors wait (more are not counted: only while the day's secret is
 * not to be had), all of one UTC day, so that each is hashed with its own day's secret.
 */
import type { HostKind, SiteKey } from './batch';
import type { Tally } from './tally';
import { visitorRegister } from './visitor-salt';

export class PendingVisitors {
  // Side by side rather than an object per visitor: no allocation per request once grown.
  #sites: SiteKey[] = [];
  #hosts: HostKind[] = [];
  #times: number[] = [];
  #addresses: string[] = [];
  #userAgents: string[] = [];
  #size = 0;
  /** The UTC day (days since 1970) of the visitors waiting. */
  day = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#size;
  }

  /** Holds a visitor of day `day` (days since 1970) until the next `hashInto`; false when full (it is not counted). */
  add(day: number, site: SiteKey, host: HostKind, at: number, address: string, userAgent: string): boolean {
    const i = this.#size;
    if (i >= this.capacity) return false;
    this.day = day;
    this.#sites[i] = site;
    this.#hosts[i] = host;
    this.#times[i] = at;
    this.#addresses[i] = address;
    this.#userAgents[i] = userAgent;
    this.#size = i + 1;
    return true;
  }

  /** Hashes every visitor waiting with their day's secret `salt` into `tally`'s sketches, and drops them. */
  hashInto(tally: Tally, salt: Uint8Array): void {
    for (let i = 0; i < this.#size; i++) {
      const site = this.#sites[i]!;
      tally.visit(site, this.#hosts[i]!, this.#times[i]!, visitorRegister(salt, this.#addresses[i]!, this.#userAgents[i]!, site.domain));
    }
    this.clear();
  }

  /** Drops every visitor waiting, uncounted. */
  clear(): void {
    this.#addresses.fill('', 0, this.#size);
    this.#userAgents.fill('', 0, this.#size);
    this.#size = 0;
  }
}
