/**
 * The day's visitor secret (docs/analytics.md, "Unique visitors"). A visitor is counted as a hash
 * of their address, user agent, the site's domain and a secret drawn at random for each UTC day.
 * Every isolate, in every location, must hash with the same secret, or one visitor served by two
 * isolates would count twice; and yesterday's secret must be gone, so that no one (an operator
 * with a backup included) can link a visitor across days.
 *
 * So one object, `VisitorSalt` (`idFromName('salt')`), draws the day's secret and holds it in
 * memory only: it is never written to storage, where point-in-time recovery would keep it for
 * 30 days. Isolates ask for it once and then every minute, in the background of a request (never
 * on its path: a request waits for nothing). The cost, measured in docs/analytics.md: should the
 * object leave memory within a day (no isolate asked for it for about a minute, or the Worker was
 * deployed), the next ask draws a new secret, and a visitor seen before and after counts twice
 * that day.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { registerOf } from './sketch';

/** The UTC day of `ms`, `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export class VisitorSalt extends DurableObject<Env> {
  #day = '';
  #salt = new Uint8Array(0);

  /** `day`'s secret, drawn on the first ask of the day; any earlier day's is dropped then. */
  salt(day: string): Uint8Array {
    if (day !== this.#day) {
      this.#day = day;
      this.#salt = crypto.getRandomValues(new Uint8Array(32));
    }
    return this.#salt;
  }
}

/** How long an isolate uses the secret it has before asking again (it asks in the background). */
const askAgainMs = 60_000;

interface HeldSalt {
  day: string;
  key: Promise<Uint8Array>;
  asked: number;
}

let held: HeldSalt | undefined;

/** The secret of the day of `now`: the one this isolate holds, asked of `VisitorSalt` when it holds none for that day. */
export function saltOf(env: Env, now: number, waitUntil: (promise: Promise<unknown>) => void): Promise<Uint8Array> {
  const day = dayOf(now);
  if (held?.day === day && now - held.asked < askAgainMs) return held.key;
  const asking = ask(env, day);
  if (held?.day === day) {
    // Keep hashing with the one held until the answer is in: the request waits for nothing.
    const current = held;
    current.asked = now;
    waitUntil(asking.then((salt) => (current.key = Promise.resolve(salt)), () => undefined));
    return current.key;
  }
  held = { day, key: asking, asked: now };
  asking.catch(() => (held = undefined));
  return asking;
}

function ask(env: Env, day: string): Promise<Uint8Array> {
  return env.VISITOR_SALT.get(env.VISITOR_SALT.idFromName('salt')).salt(day) as Promise<Uint8Array>;
}

/** A visitor's fine sketch register: the first 64 bits of SHA-256 over the day's secret, address, user agent and domain. The hash is never kept. */
export async function visitorRegister(salt: Uint8Array, address: string, userAgent: string, domain: string): Promise<number> {
  const text = new TextEncoder().encode(`\u0000${address}\u0000${userAgent}\u0000${domain}`);
  const bytes = new Uint8Array(salt.length + text.length);
  bytes.set(salt);
  bytes.set(text, salt.length);
  const digest = new DataView(await crypto.subtle.digest('SHA-256', bytes));
  return registerOf(digest.getUint32(0), digest.getUint32(4));
}
