import { createScheduledController, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { moveBlobsOutOfD1 } from '../../../src/coordinator/records/blob-moves';
import worker from '../../../src/index';
import { authorized, deploy } from '../../support/client';
import { coordinatorOf, sha256Hex } from '../../support/deployments';
import { begin, manifestOf } from '../../support/incremental';
import { liveFiles } from '../../support/live-files';

/**
 * Where a site's stored hashes lie lives in its coordinator (issue 32), not in the global D1: a
 * deploy adds no row per file to D1, and the rows a site had in D1 before move on first use.
 */

interface BlobRow {
  hash: string;
  pack: string;
  offset: number;
  size: number;
}

async function d1Rows(domain: string): Promise<BlobRow[]> {
  const { results } = await env.DB.prepare('SELECT hash, pack, offset, size FROM site_blobs WHERE domain = ? ORDER BY hash').bind(domain).all<BlobRow>();
  return results;
}

async function coordinatorRows(domain: string): Promise<BlobRow[]> {
  return runInDurableObject(coordinatorOf(domain), (_, state) => [...state.storage.sql.exec<BlobRow & Record<string, SqlStorageValue>>('SELECT hash, pack, offset, size FROM blobs ORDER BY hash')].map((row) => ({ ...row })));
}

/** As the site was before the move: its rows in D1 (as the code before it wrote them), none in its coordinator, which restarts. */
async function asBeforeTheMove(domain: string, rows: readonly BlobRow[]): Promise<void> {
  const insert = env.DB.prepare('INSERT INTO site_blobs (domain, hash, pack, offset, size) VALUES (?, ?, ?, ?, ?)');
  await env.DB.batch(rows.map((row) => insert.bind(domain, row.hash, row.pack, row.offset, row.size)));
  await runInDurableObject(coordinatorOf(domain), (_, state) => {
    state.storage.sql.exec('DELETE FROM blobs');
    state.storage.kv.delete('blobs-moved-from-d1');
  });
  // The next call finds a new instance, as after a deploy of this code.
  await runInDurableObject(coordinatorOf(domain), (_, state) => state.abort('restart')).catch(() => {});
}

describe("a site's blob index", () => {
  it('is kept by its coordinator: a deploy adds no row per file to the global D1', async () => {
    const domain = 'blob-index.example';
    const files = { 'index.html': 'home', 'a.css': 'body{}', 'b.js': 'x()' };
    expect((await deploy(domain, files)).status).toBe(200);
    expect(await d1Rows(domain)).toEqual([]);
    expect(await coordinatorRows(domain)).toHaveLength(3);
  });

  it("moves a site's rows from D1 on first use, and then knows its stored bytes: a redeploy uploads only what is new", async () => {
    const domain = 'blob-move.example';
    const files = { 'index.html': 'moved home', 'a.css': 'moved css' };
    expect((await deploy(domain, files)).status).toBe(200);
    const rows = await coordinatorRows(domain);
    expect(rows).toHaveLength(2);
    await asBeforeTheMove(domain, rows);
    expect(await d1Rows(domain)).toHaveLength(2);

    const next = { ...files, 'new.html': 'only this is new' };
    const response = await begin(domain, await manifestOf(next));
    expect(response.status).toBe(201);
    const { missing } = (await response.json()) as { missing: string[] };
    expect(missing).toEqual([await sha256Hex('only this is new')]);
    expect(await d1Rows(domain)).toEqual([]);
    expect(await coordinatorRows(domain)).toEqual(rows);
    expect(await liveFiles(domain)).toEqual(files);
  });

  it('forgets every row when the site is unpublished', async () => {
    const domain = 'blob-unpublish.example';
    expect((await deploy(domain, { 'index.html': 'gone soon' })).status).toBe(200);
    expect(await coordinatorRows(domain)).toHaveLength(1);
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await coordinatorRows(domain)).toEqual([]);
  });

  it("moves the rows of a site not used since from D1 in the daily cron, a bounded number of sites a run", async () => {
    const domains = ['blob-idle-a.example', 'blob-idle-b.example'];
    const before = new Map<string, BlobRow[]>();
    for (const domain of domains) {
      expect((await deploy(domain, { 'index.html': domain })).status).toBe(200);
      before.set(domain, await coordinatorRows(domain));
      await asBeforeTheMove(domain, before.get(domain)!);
    }
    expect(await moveBlobsOutOfD1(env, 1)).toHaveLength(1);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '17 3 * * *' }), env);
    for (const domain of domains) {
      expect(await d1Rows(domain)).toEqual([]);
      expect(await coordinatorRows(domain)).toEqual(before.get(domain));
    }
  });
});
