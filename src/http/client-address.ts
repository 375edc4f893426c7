import {
  convertIPv4BinaryToString,
  convertIPv4MappedIPv6ToIPv4,
  convertIPv6BinaryToString,
  convertIPv6ToBinary,
  distinctRemoteAddr,
  isIPv4MappedIPv6,
} from 'hono/utils/ipaddr';

/** What every request whose address is unknown counts as: locally (wrangler dev sets no address), one machine. */
export const unknownClient = 'unknown';

/**
 * Who sent a request, for counting requests per client: `CF-Connecting-IP`, which Cloudflare
 * sets on every request (a client cannot send its own through Cloudflare). An IPv6 address
 * counts as its /64, the block one host is given, so that a host cannot take a new count per
 * address; an IPv4-mapped one as its IPv4 address. Without a valid address, `unknownClient`.
 */
export function clientAddressOf(request: Request): string {
  const address = request.headers.get('cf-connecting-ip')?.trim() ?? '';
  try {
    if (distinctRemoteAddr(address) === 'IPv4') return address;
    if (distinctRemoteAddr(address) !== 'IPv6') return unknownClient;
    const binary = convertIPv6ToBinary(address);
    if (isIPv4MappedIPv6(binary)) return convertIPv4BinaryToString(convertIPv4MappedIPv6ToIPv4(binary));
    const prefix = (binary >> 64n) << 64n;
    return `${convertIPv6BinaryToString(prefix)}/64`;
  } catch {
    return unknownClient;
  }
}
