import { describe, expect, it } from 'vitest';
import type { Deployment, Usage } from '../../src/common/api-types';
import { type TokenOptions, authorizedWith, deploy, deployForm } from '../support/client';
import { blobForm, manifestOf } from '../support/incremental';

const vars = { DEPLOYS_PER_HOUR: '10' };

async function deploysUsed(user: TokenOptions): Promise<number> {
  return (await (await authorizedWith(vars, '/v2/usage', {}, user)).json<Usage>()).deploysPerHour.used;
}

describe('DEPLOYS_PER_HOUR counts a deploy once its body is read', () => {
  const badRules = { 'index.html': 'home', _redirects: '/a /b 999' };

  it('counts a multipart deploy and an incremental one refused at their end alike, and no deploy refused before its body', async () => {
    const user = { user: 'github|deploy-count' };
    const domain = 'deploy-count.example';
    await deploy('deploy-count-taken.example', { 'index.html': 'theirs' }, undefined, { user: 'github|deploy-count-other' });

    // Refused before the body is read: the domain is another user's.
    const taken = await authorizedWith(vars, '/v2/sites/deploy-count-taken.example', { method: 'PUT', body: deployForm(badRules) }, user);
    expect(taken.status).toBe(403);
    expect(await deploysUsed(user)).toBe(0);

    // The multipart path: the whole body read, then the rules refused.
    const multipart = await authorizedWith(vars, `/v2/sites/${domain}`, { method: 'PUT', body: deployForm(badRules) }, user);
    expect(multipart.status).toBe(400);
    expect(await deploysUsed(user)).toBe(1);

    // The CLI's incremental path: the manifest read, the blobs sent, then the rules refused at finalize.
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const begun = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, json({ files: await manifestOf(badRules) }), user);
    expect(begun.status).toBe(201);
    const { id } = await begun.json<Deployment>();
    const blobs = await authorizedWith(vars, `/v2/sites/${domain}/deployments/${id}/blobs`, { method: 'PUT', body: await blobForm(Object.values(badRules)) }, user);
    expect(blobs.status).toBe(200);
    expect((await authorizedWith(vars, `/v2/sites/${domain}/deployments/${id}/finalize`, { method: 'POST' }, user)).status).toBe(400);
    expect(await deploysUsed(user)).toBe(2);

    // A manifest refused once read counts too.
    const badManifest = await authorizedWith(vars, `/v2/sites/${domain}/deployments`, json({ files: { 'index.html': 'not a hash' } }), user);
    expect(badManifest.status).toBe(400);
    expect(await deploysUsed(user)).toBe(3);
  });
});
