import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aliasFrom, aliasHostNote, aliasProblem, clientOf, messageProblem, messageSummary } from '../../src/common/deployment-labels';
import { aliasLabel, checkedAlias, checkedMessage } from '../../src/content/label-checks';
import { Problem } from '../../src/http/problem';
import { fuzzParameters } from '../fuzz/settings';

describe('deployment labels', () => {
  it('names the client from the Sitehost-Client header, anything else being the API', () => {
    expect(clientOf('cli/0.1.0')).toBe('cli');
    expect(clientOf('CLI')).toBe('cli');
    expect(clientOf('dashboard')).toBe('dashboard');
    expect(clientOf('curl/8.0')).toBe('api');
    expect(clientOf(null)).toBe('api');
  });

  it("explains the hash that ends an alias host, and finds none in a deployment's preview host", async () => {
    const label = await aliasLabel('portfolio.example', 'feature-x');
    const hash = label.slice(label.lastIndexOf('-'));
    expect(hash).toMatch(/^-[a-z2-7]{13}$/);
    const note = aliasHostNote('portfolio.example', `http://${label}.preview.localhost:8787/`);
    expect(note).toMatch(new RegExp(`^Alias addresses of portfolio\\.example end in ${hash}, a hash of the domain: it keeps them apart from other sites'`));
    expect(aliasHostNote('portfolio.example', 'http://abcdefghijklmnopqrst.preview.localhost:8787/')).toBeUndefined();
  });

  it('makes an alias of any branch name, as Cloudflare Pages makes a branch alias', () => {
    expect(aliasFrom('feature/Login_Form')).toBe('feature-login-form');
    expect(aliasFrom('--Release 2.0!!')).toBe('release-2-0');
    expect(aliasFrom('dependabot/npm_and_yarn/some-very-long-package-name-1.2.3')).toBe('dependabot-npm-and-yarn-some-ver');
    expect(aliasFrom('ünïcode')).toBe('n-code');
    expect(aliasFrom('!!!')).toBe('');
  });

  it('makes only aliases the service takes, or nothing, of any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (name) => {
        const alias = aliasFrom(name);
        expect(alias === '' || aliasProblem(alias) === undefined).toBe(true);
      }),
      fuzzParameters(500),
    );
  });

  it('takes messages of up to 1,000 characters with tabs and line breaks, counted as code points', () => {
    expect(messageProblem('line one\r\n\tline two')).toBeUndefined();
    expect(messageProblem('🚀'.repeat(1000))).toBeUndefined();
    expect(messageProblem('🚀'.repeat(1001))).toMatch(/1001 characters.*MAX_MESSAGE_LENGTH/);
    expect(messageProblem('nul\u0000')).toMatch(/control character U\+0000/);
    expect(messageProblem('c1\u0085')).toMatch(/control character U\+0085/);
    // What would act on a terminal that shows the message: an escape sequence, a bell, a CR that overwrites the line.
    expect(messageProblem('title\u001b]0;pwned\u0007')).toMatch(/control character U\+001B; only tab and line breaks/);
    expect(messageProblem('fine\rforged')).toMatch(/control character U\+000D/);
    expect(messageProblem('csi\u009b2J')).toMatch(/control character U\+009B/);
    expect(checkedMessage('')).toBeNull();
    const refused = (() => {
      try {
        checkedMessage('x'.repeat(1001));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(Problem);
    expect((refused as Problem).options.extensions).toEqual({ limit: 'MAX_MESSAGE_LENGTH', value: 1000 });
    expect(() => checkedAlias('Upper')).toThrow(Problem);
    expect(() => checkedMessage(42)).toThrow(Problem);
  });

  it("shows a message's first line, cut with an ellipsis", () => {
    expect(messageSummary('Fix the header\n\nLong body', 40)).toBe('Fix the header');
    expect(messageSummary('abcdefghij', 5)).toBe('abcd…');
    expect(messageSummary(null, 5)).toBe('');
  });

  it('gives each domain and alias one DNS label of at most 63 characters, told apart by a hash of the domain', async () => {
    const label = await aliasLabel('example.com', 'feature-x');
    expect(label).toMatch(/^feature-x--example-com-[a-z2-7]{13}$/);
    expect(await aliasLabel('example.com', 'feature-x')).toBe(label);
    // Their readable parts agree; the hashes keep them apart.
    expect(await aliasLabel('a-b.example', 'x')).not.toBe(await aliasLabel('a.b.example', 'x'));
    const long = await aliasLabel(`${'d'.repeat(63)}.${'e'.repeat(63)}.example`, 'a'.repeat(32));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^a{32}--d+-[a-z2-7]{13}$/);
    await fc.assert(
      fc.asyncProperty(fc.domain(), fc.stringMatching(/^[a-z0-9](?:-?[a-z0-9]){0,31}$/), async (domain, alias) => {
        fc.pre(alias.length <= 32);
        const made = await aliasLabel(domain.toLowerCase(), alias);
        expect(made.length).toBeLessThanOrEqual(63);
        expect(made).toMatch(/^[a-z0-9][a-z0-9-]*--[a-z0-9-]*[a-z0-9]$/);
      }),
      fuzzParameters(200, 1),
    );
  });
});
