import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Usage } from '../../src/common/api-types';
import { runCli } from './cli/run';
import { type Service, getBytesFromSite, startService, token, wholeForm } from './support/service';

/**
 * The per-user quotas and the bounds on stored bytes, black-box through `npm start` with small
 * settings: each refusal is a problem naming its setting, and leaves the sites served
 * byte-identical; GET /v2/usage and `sitehost usage` say where a user stands.
 */

const quotas = { MAX_SITES_PER_USER: '2', MAX_USER_BYTES: '300000', DEPLOYS_PER_HOUR: '4', MAX_UNFINISHED_DEPLOYMENTS: '2' };

let service: Service;
let work: string;

/** A user of the service: their bearer token and what they call with it. */
async function user(name: string) {
  const bearer = `Bearer ${await token(service, `github|${name}`)}`;
  const send = (path: string, init: RequestInit = {}) => fetch(`${service.origin}${path}`, { ...init, headers: { authorization: bearer, ...init.headers } });
  return {
    token: bearer.slice('Bearer '.length),
    send,
    /** Sent whole with its headers (see wholeForm): a refusal before the body meets no EPIPE. */
    async deploy(domain: string, files: Record<string, Buffer | string>) {
      const form = new FormData();
      for (const [path, content] of Object.entries(files)) form.append('directory', new File([typeof content === 'string' ? content : new Uint8Array(content)], path));
      return send(`/v2/sites/${domain}`, { method: 'PUT', ...(await wholeForm(form)) });
    },
    async usage(): Promise<Usage> {
      return (await send('/v2/usage')).json() as Promise<Usage>;
    },
  };
}

/** What a visitor gets of `path` on `domain`: status and bytes. */
function served(domain: string, path = '/'): Promise<{ status: number; body: Buffer }> {
  return getBytesFromSite(service, domain, path);
}

async function expectProblem(response: Response, status: number, members: Record<string, unknown>): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(await response.json()).toMatchObject({ status, ...members });
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-quotas-test-'));
  service = await startService({ vars: quotas });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('per-user quotas (npm start)', () => {
  it('MAX_SITES_PER_USER: a third domain is a 403 naming it, in the API and in the CLI; the sites stay as they were', async () => {
    const owner = await user('sites');
    const page = randomBytes(20_000);
    expect((await owner.deploy('quota-one.example', { 'index.html': page })).status).toBe(200);
    expect((await owner.deploy('quota-two.example', { 'index.html': 'two' })).status).toBe(200);

    await expectProblem(await owner.deploy('quota-three.example', { 'index.html': 'three' }), 403, {
      type: '/problems/quota-exceeded',
      limit: 'MAX_SITES_PER_USER',
      value: 2,
      used: 2,
    });
    expect((await served('quota-three.example')).status).toBe(404);
    const kept = await served('quota-one.example');
    expect(kept.status).toBe(200);
    expect(kept.body.equals(page)).toBe(true);

    const folder = join(work, 'three');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'index.html'), 'three');
    const env = { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: owner.token, XDG_CONFIG_HOME: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
    const cli = await runCli(['deploy', folder, '--domain', 'quota-three.example'], { env });
    expect(cli.code).toBe(5);
    expect(cli.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Quota exceeded: .*MAX_SITES_PER_USER is 2.*\[HTTP 403\]$/);

    const usage = await runCli(['usage'], { env });
    expect(usage.code).toBe(0);
    const [header, ...rows] = usage.stdout.trim().split('\n');
    expect(header).toMatch(/^QUOTA\s+USED\s+SETTING$/);
    expect(rows[0]).toMatch(/^sites\s+2 of 2 \(100 %\)\s+MAX_SITES_PER_USER$/);
    expect(rows[1]).toMatch(/^storage\s+[\d.]+ KiB of 293 KiB \(\d+ %\)\s+MAX_USER_BYTES$/);
    expect(rows[2]).toMatch(/^deploys\s+2 of 4 \(50 %\) in the last hour\s+DEPLOYS_PER_HOUR$/);
    const json = await runCli(['usage', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(await owner.usage());
  });

  it('MAX_USER_BYTES: a deploy that would store past it is a 403 naming it; what is stored stays as it was', async () => {
    const owner = await user('bytes');
    const page = randomBytes(200_000);
    expect((await owner.deploy('quota-bytes.example', { 'index.html': page })).status).toBe(200);
    const before = await owner.usage();
    expect(before.bytes.used).toBeGreaterThan(200_000);
    expect(before.bytes).toMatchObject({ limit: 300_000, setting: 'MAX_USER_BYTES' });

    await expectProblem(await owner.deploy('quota-bytes-more.example', { 'index.html': randomBytes(150_000) }), 403, {
      type: '/problems/quota-exceeded',
      limit: 'MAX_USER_BYTES',
      value: 300_000,
      used: before.bytes.used,
    });
    expect((await owner.usage()).bytes.used).toBe(before.bytes.used);
    expect((await served('quota-bytes-more.example')).status).toBe(404);
    const kept = await served('quota-bytes.example');
    expect(kept.body.equals(page)).toBe(true);
  });

  it('DEPLOYS_PER_HOUR: the deploy past it is a 429 naming it, with Retry-After', async () => {
    const owner = await user('rate');
    for (const version of ['1', '2', '3', '4']) expect((await owner.deploy('quota-rate.example', { 'index.html': version })).status).toBe(200);
    const refused = await owner.deploy('quota-rate.example', { 'index.html': '5' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    await expectProblem(refused, 429, { type: '/problems/rate-limited', limit: 'DEPLOYS_PER_HOUR', value: 4, used: 4 });
    expect((await served('quota-rate.example')).body.toString()).toBe('4');
    expect((await owner.usage()).deploysPerHour).toEqual({ used: 4, limit: 4, setting: 'DEPLOYS_PER_HOUR' });
  });

  it('DEPLOYS_PER_HOUR: the CLI says so, and does not take the refusal of its one-request redeploy for a lost connection', async () => {
    const owner = await user('cli-rate');
    const folder = join(work, 'rate');
    await mkdir(folder, { recursive: true });
    const env = { SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: owner.token, XDG_CONFIG_HOME: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
    for (const version of ['1', '2', '3', '4']) {
      await writeFile(join(folder, 'index.html'), version);
      expect((await runCli(['deploy', folder, '--domain', 'quota-cli-rate.example'], { env })).code).toBe(0);
    }
    await writeFile(join(folder, 'index.html'), '5');
    const refused = await runCli(['deploy', folder, '--domain', 'quota-cli-rate.example'], { env });
    expect(refused.code).toBe(6);
    expect(refused.stderr).not.toMatch(/interrupted/);
    expect(refused.stderr.trim().split('\n').at(-1)).toMatch(/^Error: Too many requests: .*DEPLOYS_PER_HOUR is 4.*\[HTTP 429\]$/);
    expect((await served('quota-cli-rate.example')).body.toString()).toBe('4');
  });
});

describe('bytes stored are bytes counted (npm start)', () => {
  it('stores a blob part sent 30 times once, and caps the deploys of a site still uploading with a 429', async () => {
    const owner = await user('blobs');
    expect((await owner.deploy('quota-blobs.example', { 'index.html': 'live' })).status).toBe(200);
    const blob = randomBytes(100_000);
    const begin = () =>
      owner.send('/v2/sites/quota-blobs.example/deployments', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ files: { 'index.html': sha256Hex(Buffer.from('live')), 'blob.bin': sha256Hex(blob) } }),
      });
    const pending = (await (await begin()).json()) as Deployment;
    const before = await owner.usage();

    const form = new FormData();
    for (let i = 0; i < 30; i++) form.append('blob', new File([new Uint8Array(blob)], sha256Hex(blob)));
    const sent = await owner.send(`/v2/sites/quota-blobs.example/deployments/${pending.id}/blobs`, { method: 'PUT', body: form });
    expect(sent.status).toBe(200);
    expect((await owner.usage()).bytes.used - before.bytes.used).toBe(blob.length);

    expect((await begin()).status).toBe(201);
    const refused = await begin();
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
    await expectProblem(refused, 429, { type: '/problems/rate-limited', limit: 'MAX_UNFINISHED_DEPLOYMENTS', value: 2 });
    expect((await served('quota-blobs.example')).body.toString()).toBe('live');
  });
});
