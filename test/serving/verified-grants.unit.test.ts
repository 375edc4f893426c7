/** The isolate's memory of grants it verified: what it answers is what verifying would, and a made-up or foreign token never gets in. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grantKeyOf, signGrant, verifiedGrant } from '../../src/protection/grant';
import { rememberedGrant } from '../../src/serving/verified-grants';

const key = grantKeyOf('a test secret of the service');
const now = 1_900_000_000;
const grant = { host: 'example.com', expires: now + 600, epoch: '1.0', kind: 'link' as const, path: '/docs/' };

describe('remembered grants', () => {
  it('answer what verifying answers, the second time from memory', async () => {
    const token = await signGrant(await key, grant);
    const first = await rememberedGrant(await key, token, now);
    expect(first).toEqual(grant);
    expect(await rememberedGrant(await key, token, now + 1)).toBe(first);
  });

  it('are kept under the key that verified them: another key refuses a token the service remembers', async () => {
    const token = await signGrant(await key, grant);
    expect(await rememberedGrant(await key, token, now)).toEqual(grant);
    expect(await rememberedGrant(await grantKeyOf('a rotated secret'), token, now)).toBeUndefined();
  });

  it('are forgotten once expired: the grant is read again, with its expiry, so the gate refuses it', async () => {
    const token = await signGrant(await key, grant);
    const remembered = await rememberedGrant(await key, token, now);
    const later = await rememberedGrant(await key, token, grant.expires);
    expect(later).toEqual(grant);
    expect(later).not.toBe(remembered);
  });

  it('refuse every change of a remembered token, as verifying does', async () => {
    const token = await signGrant(await key, grant);
    expect(await rememberedGrant(await key, token, now)).toEqual(grant);
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...'ABCabc019-_.'), async (at, character) => {
        fc.pre(token[at] !== character);
        const changed = `${token.slice(0, at)}${character}${token.slice(at + 1)}`;
        expect(JSON.stringify(await rememberedGrant(await key, changed, now))).toBe(JSON.stringify(await verifiedGrant(await key, changed)));
      }),
      { seed: 20_261_129, numRuns: 200 },
    );
  });
});
