import { describe, expect, it } from 'vitest';
import { clientAddressOf, unknownClient } from '../../src/http/client-address';

const from = (address?: string) => clientAddressOf(new Request('http://localhost/', { headers: address === undefined ? {} : { 'cf-connecting-ip': address } }));

describe('the client address a request is counted by', () => {
  it.each([
    ['an IPv4 address, as it is', '198.51.100.7', '198.51.100.7'],
    ['an IPv6 address, as its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another of the same /64, written otherwise', '2001:DB8:1:2::ffff', '2001:db8:1:2::/64'],
    ['an IPv4-mapped IPv6 address, as its IPv4 address', '::ffff:198.51.100.7', '198.51.100.7'],
    ['surrounding spaces dropped', ' 198.51.100.7 ', '198.51.100.7'],
    ['no header (wrangler dev sets none): the unknown client', undefined, unknownClient],
    ['a header that is no address: the unknown client, not a count of its own', 'not-an-address', unknownClient],
    ['an IPv4 octet out of range', '198.51.100.256', unknownClient],
    ['too many IPv6 groups', '1:2:3:4:5:6:7:8:9', unknownClient],
  ])('%s', (_, address, expected) => {
    expect(from(address)).toBe(expected);
  });
});
