/**
 * The live traffic by deployment, end to end on the runtime: requests served by each deployment
 * in turn, counted with the id of the deployment the live record names, sent on the real queue,
 * merged by its consumer, and read through `GET /v2/sites/<domain>/analytics` beside the site's
 * kept deployments: the links each deploy (or rollback) broke, and its error rates against the
 * one live before it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { DeploymentTraffic, SiteAnalytics } from '../../src/common/api-types';
import { sendCounted } from '../../src/traffic/counting';
import { authorized, deploy } from '../support/client';
import { keepDeployments } from '../support/deployments';
import { site } from '../serving/support';

const day = 86_400_000;

/** Today and tomorrow (UTC), read by the day. */
function today(): string {
  const from = new Date().toISOString().slice(0, 10);
  return `?from=${from}&to=${new Date(Date.parse(from) + day).toISOString().slice(0, 10)}&interval=day`;
}

async function deployedId(domain: string, files: Record<string, string>): Promise<string> {
  const response = await deploy(domain, files);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { deploymentId: string }).deploymentId;
}

/** Requests each path once, reading each answer whole; answers the statuses. */
async function visit(domain: string, paths: readonly string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const path of paths) {
    const response = await site(domain, path, { headers: { 'user-agent': 'Mozilla/5.0 (by-deployment)', 'cf-connecting-ip': '198.51.100.7' } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

/** Sends what this isolate counted until the live traffic by deployment shows `requests` in all. */
async function byDeployment(domain: string, requests: number): Promise<DeploymentTraffic[]> {
  let body: SiteAnalytics | undefined;
  await expect
    .poll(
      async () => {
        await sendCounted(env);
        const response = await authorized(`/v2/sites/${domain}/analytics${today()}`);
        expect(response.status, await response.clone().text()).toBe(200);
        body = await response.json();
        return body!.deployments.reduce((sum, deployment) => sum + deployment.requests, 0);
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(requests);
  return body!.deployments;
}

describe('live traffic by deployment', () => {
  it('lists the links a deploy broke, and a rollback, with each one 4xx and 5xx rate against the deployment live before it', async () => {
    const domain = 'traffic-broken.example';
    await keepDeployments(domain, 20, 30);
    const first = await deployedId(domain, { 'index.html': '<!doctype html>home', 'old.html': '<!doctype html>old' });
    expect(await visit(domain, ['/', '/', '/old.html', '/missing'])).toEqual([200, 200, 200, 404]);

    const second = await deployedId(domain, { 'index.html': '<!doctype html>home 2', 'new.html': '<!doctype html>new' });
    // /old.html and /old (served as old.html) were the first deployment's; /never was nobody's.
    expect(await visit(domain, ['/old.html', '/old.html', '/old', '/never', '/new.html'])).toEqual([404, 404, 404, 404, 200]);

    const [secondTraffic, firstTraffic] = await byDeployment(domain, 9);
    expect(secondTraffic).toMatchObject({
      deploymentId: second,
      requests: 5,
      status4xx: 4,
      rate4xx: 4 / 5,
      rate5xx: 0,
      previous: { deploymentId: first, rate4xx: 1 / 4, rate5xx: 0 },
      brokenLinks: [
        { path: '/old.html', count: 2 },
        { path: '/old', count: 1 },
      ],
    });
    expect(firstTraffic).toMatchObject({ deploymentId: first, requests: 4, rate4xx: 1 / 4, previous: null, brokenLinks: [] });

    // Rolled back: the first deployment serves again, from its activation on, after the second.
    expect((await authorized(`/v2/sites/${domain}/deployments/${first}/activate`, { method: 'POST' })).status).toBe(200);
    expect(await visit(domain, ['/old.html', '/new.html'])).toEqual([200, 404]);
    const [rolledBack, replaced] = await byDeployment(domain, 11);
    expect(rolledBack).toMatchObject({
      deploymentId: first,
      requests: 6,
      status4xx: 2,
      previous: { deploymentId: second, rate4xx: 4 / 5 },
      brokenLinks: [{ path: '/new.html', count: 1 }],
    });
    expect(replaced!.deploymentId).toBe(second);
    expect(rolledBack!.liveFrom! >= replaced!.liveFrom!).toBe(true);
  });
});
