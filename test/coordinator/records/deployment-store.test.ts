import { createScheduledController, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentPage, DeployResult } from '../../../src/common/api-types';
import type { SiteCoordinator } from '../../../src/coordinator/coordinator';
import { moveDeploymentsOutOfD1 } from '../../../src/coordinator/records/blob-moves';
import worker from '../../../src/index';
import type { DeploymentRecord } from '../../../src/storage/deployments-table';
import { authorized, call, deploy, deployForm } from '../../support/client';
import { coordinatorOf, keepDeployments, keptDeployments } from '../../support/deployments';
import { liveFiles } from '../../support/live-files';

/**
 * A site's kept deployments live in its coordinator's storage (issue 32, docs/design.md
 * "Capacity"): the global D1 keeps a directory row per ready deployment for the preview and alias
 * hosts, and no copy of its host options. Deployments D1 kept before move on first use, or in the
 * daily cron, and are then served, listed, rolled back and collected as before.
 */

interface HostRow {
  id: string;
  domain: string;
  alias_label: string | null;
}

async function directoryOf(domain: string): Promise<HostRow[]> {
  const { results } = await env.DB.prepare('SELECT id, domain, alias_label FROM deployment_hosts WHERE domain = ? ORDER BY id').bind(domain).all<HostRow>();
  return results;
}

async function d1Deployments(domain: string): Promise<number> {
  return (await env.DB.prepare('SELECT COUNT(*) AS count FROM deployments WHERE domain = ?').bind(domain).first<number>('count'))!;
}

/** Every row of `domain` in every D1 table with a `domain` column, by table. */
async function d1RowsOf(domain: string): Promise<Record<string, unknown[]>> {
  const { results: tables } = await env.DB.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{ name: string; sql: string }>();
  const rows: Record<string, unknown[]> = {};
  for (const { name, sql } of tables) {
    if (!/\bdomain\b/.test(sql)) continue;
    const { results } = await env.DB.prepare(`SELECT * FROM "${name}" WHERE domain = ?`).bind(domain).all();
    if (results.length > 0) rows[name] = results;
  }
  return rows;
}

function preview(id: string): Promise<Response> {
  return call(`http://${id}.preview.localhost/`);
}

async function listed(domain: string): Promise<Deployment[]> {
  const response = await authorized(`/v2/sites/${domain}/deployments?limit=100`);
  expect(response.status).toBe(200);
  return (await response.json<DeploymentPage>()).deployments;
}

async function labelledDeploy(domain: string, files: Record<string, string>, fields: { alias?: string; message?: string; preview?: boolean } = {}): Promise<string> {
  const form = deployForm(files, { headers: [{ fields: { 'x-marker': 'host-options-marker' } }] });
  if (fields.alias) form.append('alias', fields.alias);
  if (fields.message) form.append('message', fields.message);
  const response = await authorized(`/v2/sites/${domain}${fields.preview ? '?preview=true' : ''}`, { method: 'PUT', body: form });
  expect(response.status).toBe(200);
  const body = await response.json<DeployResult | Deployment>();
  return 'deploymentId' in body ? body.deploymentId : body.id;
}

/** A row of `deployments` as the code before issue 32's move wrote it (putDeployment). */
function legacyRow(record: DeploymentRecord): D1PreparedStatement {
  return env.DB.prepare(
    `INSERT INTO deployments (id, domain, created, created_by, source, state, file_count, total_bytes, index_key, packs, configuration, manifest_key, live_until, message, client, alias, alias_label, preview)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)`,
  ).bind(
    record.id,
    record.domain,
    record.created,
    record.createdBy,
    record.source,
    record.state,
    record.fileCount,
    record.totalBytes,
    record.indexKey,
    JSON.stringify(record.packs),
    JSON.stringify(record.configuration),
    record.manifestKey,
    record.liveUntil,
    record.message,
    record.client,
    record.alias,
    record.aliasLabel,
    record.preview ? 1 : 0,
  );
}

/**
 * As `domain` was before its deployments moved: `records` in D1's `deployments` (as the code before
 * wrote them), with the directory rows migration 0016 derives from them, and none in its
 * coordinator, which restarts.
 */
async function asBeforeTheMove(domain: string, records: readonly DeploymentRecord[]): Promise<void> {
  const fill = env.TEST_MIGRATIONS.find((migration) => migration.name.startsWith('0016_'))!.queries.find((query) => query.includes('INSERT INTO deployment_hosts'))!;
  // The fill runs once on the whole table, as the migration did: rows it entered before go first.
  const unfilled = env.DB.prepare('DELETE FROM deployment_hosts WHERE domain = ?1 OR id IN (SELECT id FROM deployments)').bind(domain);
  await env.DB.batch([...records.map(legacyRow), unfilled, env.DB.prepare(fill)]);
  await runInDurableObject(coordinatorOf(domain), (_, state) => {
    state.storage.sql.exec('DELETE FROM deployments');
    state.storage.kv.delete('deployments-moved-from-d1');
  });
  await restart(domain);
}

/** Makes every D1 batch of `domain`'s coordinator fail, until it restarts. */
async function failD1Batches(domain: string): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => {
    const DB = { prepare: env.DB.prepare.bind(env.DB), batch: () => Promise.reject(new Error('D1 is down')) };
    (instance as unknown as { env: typeof env }).env = { ...env, DB } as unknown as typeof env;
  });
}

/** The next call finds a new instance, as after a deploy of this code. */
async function restart(domain: string): Promise<void> {
  await runInDurableObject(coordinatorOf(domain), (_, state) => state.abort('restart')).catch(() => {});
}

describe("a site's kept deployments", () => {
  it('are kept by its coordinator: D1 holds a directory row for each, and its host options once', async () => {
    const domain = 'history-kept.example';
    await keepDeployments(domain, 20, 30);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await labelledDeploy(domain, { 'index.html': `v${i}` }, i === 3 ? { alias: 'main' } : {}));
    const rows = await d1RowsOf(domain);
    expect(rows.deployments).toBeUndefined();
    expect(JSON.stringify(rows).split('host-options-marker')).toHaveLength(2);
    const directory = await directoryOf(domain);
    expect(directory.map((row) => row.id)).toEqual([...ids].sort());
    expect(directory.filter((row) => row.alias_label !== null)).toHaveLength(1);
    // A directory row is its id, its domain and an alias label at most.
    for (const row of directory) expect(JSON.stringify(Object.values(row)).length).toBeLessThanOrEqual(ids[0]!.length + domain.length + 80);
    expect((await keptDeployments(domain)).map((record) => record.id)).toEqual([...ids].reverse());
    for (const [i, id] of ids.entries()) expect(await (await preview(id)).text()).toBe(`v${i}`);
  });

  it('leave the directory as they are collected, and their previews stop', async () => {
    const domain = 'history-collected.example';
    const first = await labelledDeploy(domain, { 'index.html': 'one' });
    expect(await (await preview(first)).text()).toBe('one');
    // Tests keep one deployment: the next deploy collects the first.
    const second = await labelledDeploy(domain, { 'index.html': 'two' });
    expect((await directoryOf(domain)).map((row) => row.id)).toEqual([second]);
    expect((await preview(first)).status).toBe(404);
    expect(await (await preview(second)).text()).toBe('two');
    expect((await authorized(`/v2/sites/${domain}`, { method: 'DELETE' })).status).toBe(200);
    expect(await directoryOf(domain)).toEqual([]);
    expect(await keptDeployments(domain)).toEqual([]);
  });

  it('stay as they were when the D1 batch of a change fails: nothing pending is applied', async () => {
    const domain = 'history-failed.example';
    await keepDeployments(domain, 20, 30);
    const first = await labelledDeploy(domain, { 'index.html': 'one' });
    const before = await keptDeployments(domain);
    await failD1Batches(domain);
    expect((await deploy(domain, { 'index.html': 'two' })).status).toBeGreaterThanOrEqual(500);
    expect(await keptDeployments(domain)).toEqual(before);
    expect((await directoryOf(domain)).map((row) => row.id)).toEqual([first]);
  });
});

/** `records` as D1 held them before the move: from before provenance and when each went live were recorded, so without either. */
function withoutProvenance<T extends { provenance: unknown; liveFrom?: number }>(records: T[]): T[] {
  return records.map(({ liveFrom: _notInD1, ...record }) => ({ ...record, provenance: null }) as T);
}

describe('deployments D1 kept before they moved', () => {
  /** A site with three kept deployments (one aliased, one a preview, one rolled back from), then put back as before the move. */
  async function legacySite(domain: string): Promise<{ ids: string[]; listing: Deployment[]; records: DeploymentRecord[] }> {
    await keepDeployments(domain, 20, 30);
    const ids = [
      await labelledDeploy(domain, { 'index.html': 'one' }, { message: 'first' }),
      await labelledDeploy(domain, { 'index.html': 'two' }, { alias: 'feature' }),
      await labelledDeploy(domain, { 'index.html': 'three' }, { preview: true }),
    ];
    expect((await authorized(`/v2/sites/${domain}/deployments/${ids[0]}/activate`, { method: 'POST' })).status).toBe(200);
    const listing = withoutProvenance(await listed(domain));
    const records = withoutProvenance(await keptDeployments(domain));
    await asBeforeTheMove(domain, records);
    expect(await d1Deployments(domain)).toBe(3);
    expect(await runInDurableObject(coordinatorOf(domain), (_, state) => state.storage.sql.exec('SELECT COUNT(*) AS count FROM deployments').one().count)).toBe(0);
    return { ids, listing, records };
  }

  it('move on first use, and are then served, listed, rolled back and collected', async () => {
    const domain = 'history-move.example';
    const { ids, listing, records } = await legacySite(domain);
    // A preview host is the first use: the directory names the domain, whose coordinator moves its rows.
    expect(await (await preview(ids[2]!)).text()).toBe('three');
    expect(await d1Deployments(domain)).toBe(0);
    expect(await keptDeployments(domain)).toEqual(records);
    expect(await listed(domain)).toEqual(listing);
    expect(await (await preview(ids[1]!)).text()).toBe('two');
    const aliasHost = new URL(listing.find((deployment) => deployment.id === ids[1])!.aliasUrl!).host;
    expect(await (await call(`http://${aliasHost}/`)).text()).toBe('two');

    expect((await authorized(`/v2/sites/${domain}/deployments/${ids[1]}/activate`, { method: 'POST' })).status).toBe(200);
    expect(await liveFiles(domain)).toEqual({ 'index.html': 'two' });
    // Keeping one, the next deploy collects every other.
    await keepDeployments(domain, 1, 0);
    const next = await labelledDeploy(domain, { 'index.html': 'four' });
    expect((await directoryOf(domain)).map((row) => row.id)).toEqual([next]);
    for (const id of ids) expect((await preview(id)).status).toBe(404);
    expect((await listed(domain)).map((deployment) => deployment.id)).toEqual([next]);
  });

  it('lose nothing when a move stops midway and resumes', async () => {
    const domain = 'history-interrupted.example';
    const { ids, listing, records } = await legacySite(domain);
    // The move copies the rows, then its D1 batch fails: they stay in D1 too.
    await failD1Batches(domain);
    await expect(runInDurableObject(coordinatorOf(domain), (instance: SiteCoordinator) => instance.knownBlobs(domain, []))).rejects.toThrow('D1 is down');
    expect(await d1Deployments(domain)).toBe(3);
    await restart(domain);
    expect(await listed(domain)).toEqual(listing);
    expect(await d1Deployments(domain)).toBe(0);
    // Stopped after its batch, before it noted it moved: it moves again, finding nothing left.
    await runInDurableObject(coordinatorOf(domain), (_, state) => state.storage.kv.delete('deployments-moved-from-d1'));
    await restart(domain);
    expect(await listed(domain)).toEqual(listing);
    expect(await keptDeployments(domain)).toEqual(records);
    expect((await directoryOf(domain)).map((row) => row.id)).toEqual([...ids].sort());
  });

  it('move in the daily cron for sites not used since, a bounded number a run', async () => {
    const domains = ['history-idle-a.example', 'history-idle-b.example'];
    const before = new Map<string, DeploymentRecord[]>();
    for (const domain of domains) {
      expect((await deploy(domain, { 'index.html': domain })).status).toBe(200);
      before.set(domain, withoutProvenance(await keptDeployments(domain)));
      await asBeforeTheMove(domain, before.get(domain)!);
    }
    expect(await moveDeploymentsOutOfD1(env, 1)).toHaveLength(1);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '17 3 * * *' }), env);
    for (const domain of domains) {
      expect(await d1Deployments(domain)).toBe(0);
      expect(await keptDeployments(domain)).toEqual(before.get(domain));
    }
  });
});
