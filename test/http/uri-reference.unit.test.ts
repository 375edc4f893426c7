import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uriReference } from '../../src/http/uri-reference';
import { fuzzParameters } from '../fuzz/settings';

/** The string with each lone surrogate as U+FFFD, as UTF-8 writes it. */
const wellFormed = (text: string) => new TextDecoder().decode(new TextEncoder().encode(text));

describe('uriReference', () => {
  it.each([
    ['/new/page?x=1#top', '/new/page?x=1#top'],
    ['https://example.com', 'https://example.com'],
    ['/café/', '/caf%C3%A9/'],
    ['/a b', '/a%20b'],
    ['\uFEFF', '%EF%BB%BF'],
    ['/日本/😀', '/%E6%97%A5%E6%9C%AC/%F0%9F%98%80'],
    ['/lone\uD800', '/lone%EF%BF%BD'],
    ['https://bücher.example/ü?q=é', 'https://xn--bcher-kva.example/%C3%BC?q=%C3%A9'],
    ['https://exa mple.com/ü', 'https://exa%20mple.com/%C3%BC'],
  ])('sends %j as %j', (target, field) => {
    expect(uriReference(target)).toBe(field);
  });

  it('always gives printable ASCII that decodes back to the target written (lone surrogates as U+FFFD)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // Without `%`, every escape in the field is one the encoding made.
        const relative = `/${text.replaceAll('%', '')}`;
        const field = uriReference(relative);
        expect(field).toMatch(/^[\x21-\x7e]*$/);
        expect(decodeURIComponent(field)).toBe(wellFormed(relative));
      }),
      fuzzParameters(300),
    );
  });
});
