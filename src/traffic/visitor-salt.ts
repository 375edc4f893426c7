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
 * on its path: a request waits for nothing), and show the secret they hold when they ask again:
 * an object that left memory meanwhile (idle for a while, or the Worker deployed) takes the
 * day's secret back from the first isolate that shows it, rather than drawing a new one. The
 * secret is lost only when every isolate that held it is gone too; then a visitor seen before and
 * after counts twice that day (docs/analytics.md).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { registerOf } from './sketch';

/** The UTC day of `ms`, `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export class VisitorSalt extends DurableObject<Env> {
  #day = '';
  #salt: Uint8Array = new Uint8Array(0);

  /**
   * `day`'s secret: the one held, else `held` (the secret of `day` an isolate holds from before
   * this object left memory), else a new one. Any earlier day's is dropped then.
   */
  salt(day: string, held?: Uint8Array): Uint8Array {
    if (day !== this.#day) {
      this.#day = day;
      this.#salt = held?.length === 32 ? held : crypto.getRandomValues(new Uint8Array(32));
    }
    return this.#salt;
  }
}

/** How long an isolate uses the secret it has before asking again (it asks in the background). */
const askAgainMs = 60_000;

const dayMs = 86_400_000;

interface HeldSalt {
  day: string;
  /** The day as a number of days since 1970 (UTC), compared on each request rather than the text. */
  dayNumber: number;
  /** Once the first answer is in. */
  salt?: Uint8Array;
  asked: number;
}

let held: HeldSalt | undefined;

/** The UTC day of `ms` as a number of days since 1970. */
export function dayNumberOf(ms: number): number {
  return Math.floor(ms / dayMs);
}

/**
 * The secret of the day of `now`, when this isolate holds it (at once: a request never waits for
 * it); else undefined, and the isolate asks `VisitorSalt` in the background of the request
 * (`ctx.waitUntil`), unless it is asking already. It asks again once a minute, showing what it holds.
 */
export function saltOf(env: Env, now: number, ctx: Pick<ExecutionContext, 'waitUntil'>): Uint8Array | undefined {
  const dayNumber = dayNumberOf(now);
  if (held?.dayNumber !== dayNumber) {
    const day = dayOf(now);
    const current: HeldSalt = { day, dayNumber, asked: now };
    held = current;
    ctx.waitUntil(
      ask(env, day).then(
        (salt) => (current.salt = salt),
        () => (held = held === current ? undefined : held),
      ),
    );
    return undefined;
  }
  const current = held;
  if (current.salt && now - current.asked >= askAgainMs) {
    current.asked = now;
    ctx.waitUntil(ask(env, current.day, current.salt).then((salt) => (current.salt = salt), () => undefined));
  }
  return current.salt;
}

/** The secret of day `dayNumber` (days since 1970) if this isolate holds it, without asking. */
export function heldSaltOf(dayNumber: number): Uint8Array | undefined {
  return held?.dayNumber === dayNumber ? held.salt : undefined;
}

function ask(env: Env, day: string, known?: Uint8Array): Promise<Uint8Array> {
  return env.VISITOR_SALT.get(env.VISITOR_SALT.idFromName('salt')).salt(day, known) as Promise<Uint8Array>;
}

const encoder = new TextEncoder();

type Sha256 = ReturnType<typeof sha256.create>;

/** SHA-256's state once it has taken the day's secret as its first 64-byte block (the secret, then zeros), for the secret it was made of. */
let salted: { salt: Uint8Array; state: Sha256 } | undefined;
/** Where each visitor is hashed: a copy of the salted state, then its own bytes; wiped after each. */
const working = sha256.create();
const digest = new Uint8Array(32);
const digestView = new DataView(digest.buffer);
/** A visitor's bytes, encoded without an allocation when they fit (a user agent rarely passes a few hundred bytes). */
const scratch = new Uint8Array(1024);

function saltedState(salt: Uint8Array): Sha256 {
  if (salted?.salt !== salt) {
    const block = new Uint8Array(64);
    block.set(salt.subarray(0, 64));
    salted = { salt, state: sha256.create().update(block) };
  }
  return salted.state;
}

/**
 * A visitor's fine sketch register: the first 64 bits of SHA-256 over a block of the day's secret
 * (zero-padded to SHA-256's 64 bytes), then address, user agent and domain (@noble/hashes,
 * synchronous: Web Crypto's digest is a promise, and a promise per request cost serving more than
 * the hash). The secret's block is hashed once per secret; each visitor hashes only its own bytes,
 * in buffers reused and wiped afterwards: the hash and the bytes hashed are never kept.
 */
export function visitorRegister(salt: Uint8Array, address: string, userAgent: string, domain: string): number {
  const text = `\u0000${address}\u0000${userAgent}\u0000${domain}`;
  const { read, written } = encoder.encodeInto(text, scratch);
  const bytes = read === text.length ? scratch.subarray(0, written) : encoder.encode(text);
  saltedState(salt)._cloneInto(working).update(bytes).digestInto(digest);
  const register = registerOf(digestView.getUint32(0), digestView.getUint32(4));
  working.destroy();
  scratch.fill(0, 0, written);
  digest.fill(0);
  return register;
}
