import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/http/problem';
import { claimKind } from '../../src/domains/claim-rules';

function refusal(domain: string, parent: string | null = null): { kind: string; reason: unknown; detail: string } {
  try {
    claimKind(domain, parent);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { kind: error.kind, reason: error.options.extensions?.reason, detail: error.detail };
  }
  throw new Error(`${domain} was not refused`);
}

describe('which domains can be claimed', () => {
  it.each(['com', 'co.uk', 'github.io', 'pages.dev', 'netlify.app', 's3.amazonaws.com', 'xn--p1ai', 'test'])(
    'never a public suffix, from either section of the Public Suffix List: %s',
    (domain) => {
      expect(refusal(domain)).toEqual({
        kind: 'domain-not-claimable',
        reason: 'public-suffix',
        detail: `"${domain}" cannot be claimed: it is a public suffix, under which anyone can register names (the Public Suffix List).`,
      });
    },
  );

  it.each(['example.com', 'www.example.co.uk', 'me.github.io', 'site.pages.dev', 'example.xn--p1ai', 'site.example'])('with proof, a registrable name or one under it: %s', (domain) => {
    expect(claimKind(domain, null)).toBe('proof');
  });

  it('first come, first served: a name one label under the parent domain; never the parent itself', () => {
    expect(claimKind('blog.sitehost.app', 'sitehost.app')).toBe('free');
    expect(claimKind('a.blog.sitehost.app', 'sitehost.app')).toBe('proof');
    expect(claimKind('othersitehost.app', 'sitehost.app')).toBe('proof');
    expect(refusal('sitehost.app', 'sitehost.app')).toMatchObject({ reason: 'parent-domain', detail: expect.stringContaining('<name>.sitehost.app') });
  });
});
