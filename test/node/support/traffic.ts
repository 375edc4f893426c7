import { expect } from 'vitest';
import type { SiteAnalytics } from '../../../src/common/api-types';
import { sitePath } from '../../../src/common/site-paths';
import { type RunningService, getBytesFromSite } from './service';

/** A browser's user agent: `isbot` counts what it recognises apart, and an empty one is no browser's. */
export const browserAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** Visits `path` of `domain` through the service's site host as a browser does; answers the status. */
export async function visit(service: RunningService, domain: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return (await getBytesFromSite(service, domain, path, { 'user-agent': browserAgent, ...headers })).status;
}

/** `GET /v2/sites/<domain>/analytics` with `bearer`, from a day ago. */
export async function readAnalytics(service: RunningService, domain: string, bearer: string): Promise<SiteAnalytics> {
  const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 19);
  const response = await fetch(`${service.origin}${sitePath(domain, `/analytics?from=${from}`)}`, { headers: { authorization: `Bearer ${bearer}` } });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as SiteAnalytics;
}

/**
 * Waits until `counted` holds of what the service shows, reading it with `read`. Nothing visits the
 * sites meanwhile: an isolate sends the last counts of a quiet site when its interval
 * (`ANALYTICS_FLUSH_SECONDS`) ends, with no later request to carry them.
 */
export async function untilCounted<T>(read: () => Promise<T>, counted: (value: T) => void): Promise<T> {
  let last: T | undefined;
  await expect
    .poll(
      async () => {
        last = await read();
        counted(last);
        return true;
      },
      { timeout: 60_000, interval: 1_000 },
    )
    .toBe(true);
  return last as T;
}
