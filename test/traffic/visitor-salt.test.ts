import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

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
