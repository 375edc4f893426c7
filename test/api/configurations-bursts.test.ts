import { describe, expect, it } from 'vitest';
import { authorized, deploy } from '../support/client';

/**
 * GET /v2/configurations revalidated with If-Modified-Since around bursts of changes. The
 * service stamps changes by the database's clock, which a test cannot set: these tests wait
 * for real seconds to pass.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for the start of the next wall-clock second, so that a burst fits within one. */
const nextSecond = () => sleep(1000 - (Date.now() % 1000) + 20);

function configurations(headers: Record<string, string> = {}): Promise<Response> {
  return authorized('/v2/configurations', { headers }, { scope: 'global_read' });
}

function configure(domain: string, root: string): Promise<Response> {
  return authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ root }) });
}

async function rootOf(response: Response, domain: string): Promise<unknown> {
  const records = (await response.json()) as { domain: string; configuration: { root?: string } }[];
  return records.find((record) => record.domain === domain)?.configuration.root;
}

describe('GET /v2/configurations after a burst of changes within one second', () => {
  it('answers 304 to the newest Last-Modified once that second is over, and never hides a later change', async () => {
    await deploy('burst.example', {}, { root: 'start' });
    let settled: Response | undefined;
    let duringBurst: Response | undefined;
    // A loaded machine may stretch a burst over two seconds: try again until one fits in one.
    for (let attempt = 0; attempt < 5 && !settled; attempt++) {
      await nextSecond();
      const start = Date.now();
      expect((await configure('burst.example', `a${attempt}`)).status).toBe(200);
      duringBurst = await configurations();
      expect((await configure('burst.example', `b${attempt}`)).status).toBe(200);
      expect((await configure('burst.example', `c${attempt}`)).status).toBe(200);
      const end = Date.now();

      // The changes after that response are not hidden from its copy, by date or by tag.
      const byDate = await configurations({ 'if-modified-since': duringBurst.headers.get('last-modified')! });
      expect(byDate.status).toBe(200);
      expect(await rootOf(byDate, 'burst.example')).toBe(`c${attempt}`);
      const byTag = await configurations({ 'if-none-match': duringBurst.headers.get('etag')! });
      expect(byTag.status).toBe(200);

      if (Math.floor(start / 1000) !== Math.floor(end / 1000)) continue;
      await sleep(1000 - (end % 1000) + 100);
      settled = await configurations();
    }
    expect(settled, 'three changes within one second').toBeDefined();
    expect(await rootOf(settled!, 'burst.example')).toMatch(/^c/);
    // Within the burst's second, a response is stamped with the second before; after it, with its own.
    const stamp = (response: Response) => Date.parse(response.headers.get('last-modified')!);
    expect(stamp(settled!) - stamp(duringBurst!)).toBe(1000);

    const lastModified = settled!.headers.get('last-modified')!;
    for (let poll = 0; poll < 3; poll++) {
      const revalidated = await configurations({ 'if-modified-since': lastModified });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('last-modified')).toBe(lastModified);
      expect(revalidated.headers.get('etag')).toBe(settled!.headers.get('etag'));
      expect((await configurations({ 'if-none-match': settled!.headers.get('etag')! })).status).toBe(304);
    }
  });

  it('never hides a change made right after a response, however the seconds fall', async () => {
    await deploy('right-after.example', {}, { root: 'r0' });
    for (let round = 1; round <= 6; round++) {
      const copy = await configurations();
      expect((await configure('right-after.example', `r${round}`)).status).toBe(200);
      const revalidated = await configurations({ 'if-modified-since': copy.headers.get('last-modified')! });
      expect(revalidated.status).toBe(200);
      expect(await rootOf(revalidated, 'right-after.example')).toBe(`r${round}`);
      // Rounds land at different points of a second, the last ones right at its end.
      await sleep(round * 170);
    }
  });

  it('hides no unpublish behind a 304 either', async () => {
    await deploy('gone-in-burst.example', {}, { root: 'x' });
    const copy = await configurations();
    expect((await authorized('/v2/sites/gone-in-burst.example', { method: 'DELETE' })).status).toBe(200);
    const revalidated = await configurations({ 'if-modified-since': copy.headers.get('last-modified')! });
    expect(revalidated.status).toBe(200);
    expect(await rootOf(revalidated, 'gone-in-burst.example')).toBeUndefined();
  });
});
