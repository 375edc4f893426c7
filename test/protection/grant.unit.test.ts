/** Grants, passwords and Basic credentials: the pure parts of protected sites, with hostile input from fast-check (a fixed seed). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicAuthFault, basicCredentialsOf, credentialMatches, hashCredentials } from '../../src/protection/basic-auth';
import { grantKeyOf, grantOpens, maxGrantLength, signGrant, verifiedGrant } from '../../src/protection/grant';
import { hashPassword, passwordMatches } from '../../src/protection/password-hash';
import { sameHostPath } from '../../src/serving/grant-key';

const seed = 20_261_129;
const key = grantKeyOf('a test secret of the service');
const grant = { host: 'example.com', expires: 2_000_000_000, epoch: '1.0', kind: 'link' as const, path: '/docs/' };

describe('grants', () => {
  it('verify what the service signed, and open only their host, epoch and time', async () => {
    const token = await signGrant(await key, grant);
    const read = await verifiedGrant(await key, token);
    expect(read).toEqual(grant);
    expect(grantOpens(read!, 'example.com', '1.0', 1_999_999_999)).toBe(true);
    expect(grantOpens(read!, 'other.example', '1.0', 1_999_999_999)).toBe(false);
    expect(grantOpens(read!, 'example.com', '1.5', 1_999_999_999)).toBe(false);
    expect(grantOpens(read!, 'example.com', '1.0', 2_000_000_000)).toBe(false);
    expect(await verifiedGrant(await grantKeyOf('another secret'), token)).toBeUndefined();
  });

  it('refuse every change of a signed grant, one character anywhere', async () => {
    const token = await signGrant(await key, grant);
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...'ABCabc019-_.'), async (at, character) => {
        fc.pre(token[at] !== character);
        const changed = `${token.slice(0, at)}${character}${token.slice(at + 1)}`;
        // Base64url's last character can carry unused bits: a change there may decode to the same bytes.
        const same = await verifiedGrant(await key, changed);
        expect(same === undefined || JSON.stringify(same) === JSON.stringify(grant)).toBe(true);
      }),
      { seed, numRuns: 200 },
    );
  });

  it('refuse any text that is not a grant, and overlong text before any work', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        expect(await verifiedGrant(await key, text)).toBeUndefined();
      }),
      { seed, numRuns: 300 },
    );
    expect(await verifiedGrant(await key, 'x'.repeat(maxGrantLength + 1))).toBeUndefined();
  });
});

describe('the path a link lands on', () => {
  it.each([['/'], ['/docs/'], ['/a?b=c'], ['/caf%C3%A9']])('keeps %s', (path) => expect(sameHostPath(path)).toBe(path));
  it.each([['//evil.example/'], ['/\\evil.example'], ['https://evil.example/'], ['evil'], [''], ['/a\tb'], ['/a b'], [' /a'], [7]])('refuses %j', (path) => expect(sameHostPath(path)).toBeUndefined());

  it('never leaves the host, whatever it is given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webPath(), fc.string().map((s) => `/${s}`)), (path) => {
        const landing = sameHostPath(path);
        if (landing === undefined) return;
        expect(new URL(landing, 'https://site.example/').origin).toBe('https://site.example');
        expect(landing.startsWith('/') && !landing.startsWith('//')).toBe(true);
      }),
      { seed, numRuns: 300 },
    );
  });
});

describe('passwords and Basic credentials', () => {
  it('match the right password only, and refuse any when none is stored', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored.hash).not.toContain('correct');
    expect(await passwordMatches('correct horse', stored)).toBe(true);
    expect(await passwordMatches('correct hors', stored)).toBe(false);
    expect(await passwordMatches('', null)).toBe(false);
  });

  it("read Basic-Auth values and Authorization fields as Netlify's and RFC 7617 write them", async () => {
    expect(basicAuthFault('a:b c:d:e')).toBeUndefined();
    expect(basicAuthFault('a')).toBeDefined();
    expect(basicAuthFault('a:')).toBeDefined();
    expect(basicCredentialsOf(`Basic ${btoa('ann:pass:word')}`)).toEqual({ user: 'ann', password: 'pass:word' });
    expect(basicCredentialsOf(`basic ${btoa('ann:x')}`)).toEqual({ user: 'ann', password: 'x' });
    for (const field of [null, 'Bearer x', 'Basic', 'Basic !!!', `Basic ${btoa('no colon')}`]) expect(basicCredentialsOf(field)).toBeUndefined();
    const accepted = await hashCredentials([{ user: 'ann', password: 'first' }]);
    expect(await credentialMatches({ user: 'ann', password: 'first' }, accepted)).toBe(true);
    expect(await credentialMatches({ user: 'ann', password: 'second' }, accepted)).toBe(false);
    expect(await credentialMatches({ user: 'bob', password: 'first' }, accepted)).toBe(false);
  });
});
