import { describe, expect, it } from 'vitest';
import { CloudflareApiError, purgeUrls } from '../../src/certificates/cloudflare/api';

/** Cloudflare's API as recorded: what it answers a purge by URL (EDGE_PURGE=cloudflare). */
function answering(status: number, body: unknown, seen: Request[]): typeof fetch {
  return async (input, init) => {
    seen.push(new Request(input, init));
    return Response.json(body, { status });
  };
}

describe('purging a URL through the zone API', () => {
  it('POSTs the URL to the zone purge endpoint with the token', async () => {
    const seen: Request[] = [];
    const options = { zoneId: 'zone-1', apiToken: 'token-1', fetch: answering(200, { success: true, errors: [], result: { id: 'p' } }, seen) };
    await purgeUrls(options, ['https://cache.example.net/live/example.com']);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('https://api.cloudflare.com/client/v4/zones/zone-1/purge_cache');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer token-1');
    expect(await seen[0]!.json()).toEqual({ files: ['https://cache.example.net/live/example.com'] });
  });

  it('throws what Cloudflare refused', async () => {
    const options = { zoneId: 'zone-1', apiToken: 'bad', fetch: answering(403, { success: false, errors: [{ code: 10000, message: 'Authentication error' }], result: null }, []) };
    const purging = purgeUrls(options, ['https://cache.example.net/live/example.com']);
    await expect(purging).rejects.toBeInstanceOf(CloudflareApiError);
    await expect(purging).rejects.toMatchObject({ status: 403, codes: [10000] });
  });
});
