import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PendingVisitors } from '../../src/traffic/pending-visitors';
import { emptyRegisters, estimate, finePrecision, mergeFine, registerOf } from '../../src/traffic/sketch';
import type { Tally } from '../../src/traffic/tally';
import { visitorRegister } from '../../src/traffic/visitor-salt';

/** A `VisitorSalt` object of its own, fresh as one that just came back into memory. */
function freshHolder(name: string) {
  return env.VISITOR_SALT.get(env.VISITOR_SALT.idFromName(name));
}

describe("the day's visitor secret", () => {
  it('is one per day for every asker, and a new one the next day', async () => {
    const holder = freshHolder('salt-days');
    const first = await holder.salt('2026-11-29');
    expect(first).toHaveLength(32);
    expect(await holder.salt('2026-11-29')).toEqual(first);
    const next = await holder.salt('2026-11-30');
    expect(next).not.toEqual(first);
    // Yesterday's is gone: asking for it again draws a new one.
    expect(await holder.salt('2026-11-29')).not.toEqual(first);
  });

  it('is taken back from an isolate that holds it when the object lost it, so visitors are not counted twice', async () => {
    const held = crypto.getRandomValues(new Uint8Array(32));
    const holder = freshHolder('salt-recovered');
    expect(await holder.salt('2026-11-29', held)).toEqual(held);
    // Another isolate, holding an older draw, is told the one the object holds.
    expect(await holder.salt('2026-11-29', crypto.getRandomValues(new Uint8Array(32)))).toEqual(held);
    expect(await holder.salt('2026-11-29')).toEqual(held);
  });
});

describe("a visitor's sketch register", () => {
  /** The definition: the first 64 bits of SHA-256 over the secret zero-padded to 64 bytes, then the visitor's bytes. */
  async function expected(salt: Uint8Array, address: string, userAgent: string, domain: string): Promise<number> {
    const text = new TextEncoder().encode(`\u0000${address}\u0000${userAgent}\u0000${domain}`);
    const input = new Uint8Array(64 + text.length);
    input.set(salt);
    input.set(text, 64);
    const digest = new DataView(await crypto.subtle.digest('SHA-256', input));
    return registerOf(digest.getUint32(0), digest.getUint32(4));
  }

  it("is the hash of the day's secret and the visitor, for any secret in turn and any length of user agent", async () => {
    const salts = [crypto.getRandomValues(new Uint8Array(32)), crypto.getRandomValues(new Uint8Array(32))];
    const agents = ['Mozilla/5.0 (X11; Linux x86_64)', `Mozilla/5.0 ${'é'.repeat(3_000)}`, ''];
    for (const salt of [...salts, salts[0]!]) {
      for (const userAgent of agents) {
        expect(visitorRegister(salt, '203.0.113.7', userAgent, 'counted.example')).toBe(await expected(salt, '203.0.113.7', userAgent, 'counted.example'));
      }
    }
  });

  it('counts 10,000 distinct visitors within ±3 %, and each one again as the same', () => {
    const salt = crypto.getRandomValues(new Uint8Array(32));
    const registers = emptyRegisters(finePrecision);
    const visitorOf = (i: number) => visitorRegister(salt, `10.0.${i >> 8}.${i & 255}`, `Mozilla/5.0 (visitor ${i % 7})`, 'counted.example');
    mergeFine(registers, Array.from({ length: 10_000 }, (_, i) => visitorOf(i)));
    const once = registers.slice();
    mergeFine(registers, Array.from({ length: 10_000 }, (_, i) => visitorOf(i)));
    expect(registers).toEqual(once);
    expect(Math.abs(estimate(registers) - 10_000) / 10_000).toBeLessThanOrEqual(0.03);
  });
});

describe('visitors waiting to be hashed', () => {
  it('are hashed in one go as each would be alone, into their site, host kind and time, then dropped; past the capacity one is refused', () => {
    const salt = crypto.getRandomValues(new Uint8Array(32));
    const site = { domain: 'counted.example', claim: 1 };
    const pending = new PendingVisitors(3);
    const visited: unknown[][] = [];
    const tally = { visit: (...args: unknown[]) => visited.push(args) } as unknown as Tally;
    expect(pending.add(20_000, site, 'live', 1_000, '203.0.113.7', 'Mozilla/5.0 (a)')).toBe(true);
    expect(pending.add(20_000, site, 'preview', 2_000, '203.0.113.8', 'Mozilla/5.0 (b)')).toBe(true);
    expect(pending.add(20_000, site, 'live', 3_000, '203.0.113.9', 'Mozilla/5.0 (c)')).toBe(true);
    expect(pending.add(20_000, site, 'live', 4_000, '203.0.113.10', 'Mozilla/5.0 (d)')).toBe(false);
    expect(pending).toMatchObject({ size: 3, day: 20_000 });
    pending.hashInto(tally, salt);
    expect(visited).toEqual([
      [site, 'live', 1_000, visitorRegister(salt, '203.0.113.7', 'Mozilla/5.0 (a)', site.domain)],
      [site, 'preview', 2_000, visitorRegister(salt, '203.0.113.8', 'Mozilla/5.0 (b)', site.domain)],
      [site, 'live', 3_000, visitorRegister(salt, '203.0.113.9', 'Mozilla/5.0 (c)', site.domain)],
    ]);
    expect(pending.size).toBe(0);
    pending.hashInto(tally, salt);
    expect(visited).toHaveLength(3);
  });
});
