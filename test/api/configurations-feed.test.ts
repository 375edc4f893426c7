import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { cursorAt } from '../../src/api/configurations-cursor';
import { forgetOldUnpublished, readConfigurationsClock } from '../../src/storage/configurations-feed';
import { authorized, deploy, problemOf } from '../support/client';

/**
 * GET /v2/configurations at any size (issue 32): the whole list streamed in keyset pages, `?limit=`
 * pages, a cursor on every answer, and the changes feed after it (`?since=`).
 */

type Change = { domain: string; modified: string; configuration?: Record<string, unknown>; deleted?: true };
type Record_ = { domain: string; modified: string; configuration: Record<string, unknown> };

function read(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return authorized(path, { headers }, { scope: 'global_read' });
}

function configure(domain: string, root: string): Promise<Response> {
  return authorized(`/v2/sites/${domain}/configuration`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ root }) });
}

function unpublish(domain: string): Promise<Response> {
  return authorized(`/v2/sites/${domain}`, { method: 'DELETE' });
}

function cursorOf(response: Response): string {
  const cursor = response.headers.get('sitehost-cursor');
  expect(cursor, 'a Sitehost-Cursor header').toBeTruthy();
  return cursor!;
}

/** The target of `Link: <target>; rel="next"`, or undefined without one. */
function nextOf(response: Response): string | undefined {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  return /^<([^>]+)>; rel="next"$/.exec(link)![1];
}

/** Every change after `cursor`, following the feed's pages; and the cursor it ends at. */
async function follow(cursor: string, limit?: number): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let next: string | undefined = `/v2/configurations?${new URLSearchParams({ since: cursor, ...(limit ? { limit: String(limit) } : {}) })}`;
  let pages = 0;
  let last = cursor;
  while (next !== undefined) {
    const response = await read(next);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { changes: Change[]; cursor: string };
    expect(cursorOf(response)).toBe(page.cursor);
    changes.push(...page.changes);
    last = page.cursor;
    next = nextOf(response);
    pages++;
  }
  return { changes, cursor: last, pages };
}

/** Writes `count` site rows as deploys leave them, named `<prefix>-00000.example` on. */
async function seedSites(prefix: string, count: number): Promise<void> {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2)
     INSERT INTO sites (domain, user_id, created, modified, configuration, configuration_modified)
     SELECT ?1 || '-' || printf('%05d', i) || '.example', 'github|seed', 1, 1, json_object('root', 'r' || i), 1 FROM n`,
  )
    .bind(prefix, count)
    .run();
}

describe('GET /v2/configurations, the whole list', () => {
  it('streams every record once, in domain order, across the pages it is read in', async () => {
    // More than four of the stream's D1 pages (1,000 records).
    await seedSites('feed-stream', 4321);
    const response = await read('/v2/configurations');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    cursorOf(response);
    const records = (await response.json()) as Record_[];
    const seeded = records.filter((record) => record.domain.startsWith('feed-stream-'));
    expect(seeded.map((record) => record.domain)).toEqual(Array.from({ length: 4321 }, (_, i) => `feed-stream-${String(i).padStart(5, '0')}.example`));
    expect(seeded[4320]).toEqual({ domain: 'feed-stream-04320.example', modified: '1970-01-01T00:00:00.001', configuration: { root: 'r4320' } });
    expect(records.map((record) => record.domain)).toEqual(records.map((record) => record.domain).sort());
  });

  it('answers a client that goes away mid-stream, and the next one whole', async () => {
    await seedSites('feed-cancel', 2500);
    const response = await read('/v2/configurations');
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    const again = await read('/v2/configurations');
    expect(((await again.json()) as Record_[]).filter((record) => record.domain.startsWith('feed-cancel-'))).toHaveLength(2500);
  });

  it('answers 304 with the cursor, and the same cursor as the 200', async () => {
    await deploy('revalidate.example', {}, { root: 'a' });
    const first = await read('/v2/configurations');
    await first.body!.cancel();
    const unchanged = await read('/v2/configurations', { 'if-none-match': first.headers.get('etag')! });
    expect(unchanged.status).toBe(304);
    expect(cursorOf(unchanged)).toBe(cursorOf(first));
  });
});

describe('GET /v2/configurations?limit=', () => {
  it.each([
    [2, 'pg-'],
    [400, ''],
  ])('pages the list with Link rel="next" (limit=%i, after "%s"), every record once', async (limit, after) => {
    for (const name of ['pg-c', 'pg-a', 'pg-b']) await deploy(`${name}.example`, {}, { root: name });
    const whole = ((await (await read('/v2/configurations')).json()) as Record_[]).map((record) => record.domain).filter((domain) => domain > after);
    const seen: string[] = [];
    let next: string | undefined = `/v2/configurations?${new URLSearchParams({ limit: String(limit), ...(after ? { cursor: after } : {}) })}`;
    // From "pg-", the pages up to the last pg- site (the seeded sites fill the rest).
    while (next !== undefined && !(after && seen.includes('pg-c.example'))) {
      const response = await read(next);
      expect(response.status).toBe(200);
      cursorOf(response);
      const page = (await response.json()) as Record_[];
      expect(page.length).toBeLessThanOrEqual(limit);
      seen.push(...page.map((record) => record.domain));
      next = nextOf(response);
    }
    expect(seen).toEqual(after ? whole.slice(0, seen.length) : whole);
    if (after) expect(seen.slice(0, 3)).toEqual(['pg-a.example', 'pg-b.example', 'pg-c.example']);
  });

  it.each(['-1', '0', '1001', 'ten', '1.5', ''])('answers 400 to limit=%s', async (limit) => {
    const response = await read(`/v2/configurations?limit=${limit}`);
    expect(response.status).toBe(400);
    expect((await problemOf(response)).type).toBe('/problems/invalid-request');
  });
});

describe('GET /v2/configurations?since=', () => {
  it('answers exactly the domains changed after the cursor, each once, at its latest, in order', async () => {
    await deploy('feed-keep.example', {}, { root: 'keep' });
    await deploy('feed-edit.example', {}, { root: 'one' });
    await deploy('feed-drop.example', {}, { root: 'drop' });
    const listed = await read('/v2/configurations');
    await listed.body!.cancel();
    const cursor = cursorOf(listed);

    expect((await configure('feed-edit.example', 'two')).status).toBe(200);
    await deploy('feed-new.example', {}, { root: 'new' });
    expect((await unpublish('feed-drop.example')).status).toBe(200);
    expect((await configure('feed-edit.example', 'three')).status).toBe(200);

    const { changes, cursor: next } = await follow(cursor);
    expect(changes.map(({ modified, ...change }) => change)).toEqual([
      { domain: 'feed-new.example', configuration: { root: 'new' } },
      { domain: 'feed-drop.example', deleted: true },
      { domain: 'feed-edit.example', configuration: { root: 'three' } },
    ]);
    const modified = changes.map((change) => change.modified);
    expect(modified).toEqual([...modified].sort());
    // A record's modified is the one the list and GET .../configuration answer.
    const one = (await (await read('/v2/sites/feed-edit.example/configuration')).json()) as Record_;
    expect(changes[2]!.modified).toBe(one.modified);

    expect((await follow(next)).changes).toEqual([]);
    // Every answer's cursor is where the feed goes on from: the latest list's equals it.
    const later = await read('/v2/configurations');
    await later.body!.cancel();
    expect(cursorOf(later)).toBe(next);
  });

  it('pages the feed with limit, each change once', async () => {
    const start = await read('/v2/configurations?limit=1');
    const cursor = cursorOf(start);
    for (const name of ['fp-1', 'fp-2', 'fp-3', 'fp-4', 'fp-5']) await deploy(`${name}.example`, {}, { root: name });
    const { changes, pages } = await follow(cursor, 2);
    expect(changes.map((change) => change.domain)).toEqual(['fp-1.example', 'fp-2.example', 'fp-3.example', 'fp-4.example', 'fp-5.example']);
    expect(pages).toBe(3);
  });

  it('neither loses nor repeats a site unpublished between two pages of the list', async () => {
    for (const name of ['between-a', 'between-b', 'between-c']) await deploy(`${name}.example`, {}, { root: name });
    const first = await read('/v2/configurations?limit=1&cursor=between-0');
    const page1 = (await first.json()) as Record_[];
    expect(page1.map((record) => record.domain)).toEqual(['between-a.example']);
    expect((await unpublish('between-b.example')).status).toBe(200);
    const second = await read(nextOf(first)!);
    expect(((await second.json()) as Record_[]).map((record) => record.domain)).toEqual(['between-c.example']);

    const { changes } = await follow(cursorOf(first));
    expect(changes.filter((change) => change.domain === 'between-b.example').map(({ modified, ...change }) => change)).toEqual([{ domain: 'between-b.example', deleted: true }]);
  });

  it('answers a domain unpublished and published again once, as its site', async () => {
    await deploy('again.example', {}, { root: 'first' });
    const start = await read('/v2/configurations?limit=1');
    expect((await unpublish('again.example')).status).toBe(200);
    await deploy('again.example', {}, { root: 'second' });
    const { changes } = await follow(cursorOf(start));
    expect(changes.filter((change) => change.domain === 'again.example').map(({ modified, ...change }) => change)).toEqual([
      { domain: 'again.example', configuration: { root: 'second' } },
    ]);
  });

  it.each([
    ['malformed', () => 'not-a-cursor'],
    ['empty', () => ''],
    ['forged: another position with the same MAC', (cursor: string) => cursor.replace(/^\d+/, (position) => String(Number(position) - 1))],
    ['forged: another MAC', (cursor: string) => cursor.replace(/\.(.)/, (_, c: string) => `.${c === 'A' ? 'B' : 'A'}`)],
  ])('answers 400 to a %s cursor', async (_, forge) => {
    await deploy('cursor-check.example', {}, { root: 'x' });
    const response = await read('/v2/configurations?limit=1');
    const bad = await read(`/v2/configurations?${new URLSearchParams({ since: forge(cursorOf(response)) })}`);
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).type).toBe('/problems/invalid-request');
  });

  it("answers 400 to another deployment's cursor (signed with another database's key)", async () => {
    const response = await read('/v2/configurations?limit=1');
    const cursor = cursorOf(response);
    const { key } = (await env.DB.prepare("SELECT key FROM service_keys WHERE name = 'configurations-cursor'").first<{ key: number[] }>())!;
    try {
      await env.DB.prepare("UPDATE service_keys SET key = randomblob(32) WHERE name = 'configurations-cursor'").run();
      const bad = await read(`/v2/configurations?${new URLSearchParams({ since: cursor })}`);
      expect(bad.status).toBe(400);
    } finally {
      await env.DB.prepare("UPDATE service_keys SET key = ? WHERE name = 'configurations-cursor'").bind(new Uint8Array(key)).run();
    }
    expect((await read(`/v2/configurations?${new URLSearchParams({ since: cursor })}`)).status).toBe(200);
  });

  it('answers 410 to a cursor this service gave after the point its database was restored to', async () => {
    await deploy('cursor-restored.example', {}, { root: 'x' });
    // A cursor signed with this database's key for a position past its clock: one taken before D1 was restored to an earlier minute.
    const clock = await readConfigurationsClock(env.DB);
    const fromTheLostMinutes = await cursorAt(clock, clock.modified + 60_000);
    const gone = await read(`/v2/configurations?${new URLSearchParams({ since: fromTheLostMinutes })}`);
    expect(gone.status).toBe(410);
    expect((await problemOf(gone)).type).toBe('/problems/gone');
  });

  it('answers 400 to since with a list cursor', async () => {
    const response = await read('/v2/configurations?limit=1');
    const bad = await read(`/v2/configurations?${new URLSearchParams({ since: cursorOf(response), cursor: 'feed-cursor.example' })}`);
    expect(bad.status).toBe(400);
  });

  it('answers 410 to a cursor older than the unpublishes kept, and goes on from a newer one', async () => {
    await deploy('old-drop.example', {}, { root: 'x' });
    const before = cursorOf(await read('/v2/configurations?limit=1'));
    expect((await unpublish('old-drop.example')).status).toBe(200);
    const after = cursorOf(await read('/v2/configurations?limit=1'));
    // The daily cron, retention days later.
    const retentionDays = 7;
    expect(await forgetOldUnpublished(env.DB, Date.now() + retentionDays * 86_400_000 + 1000, retentionDays)).toBeGreaterThanOrEqual(1);

    const gone = await read(`/v2/configurations?${new URLSearchParams({ since: before })}`);
    expect(gone.status).toBe(410);
    const problem = await problemOf(gone);
    expect(problem.type).toBe('/problems/gone');
    expect(problem.detail).toMatch(/list every configuration again/);
    expect((await read(`/v2/configurations?${new URLSearchParams({ since: after })}`)).status).toBe(200);
  });
});
