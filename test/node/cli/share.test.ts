import { beforeAll, describe, expect, it } from 'vitest';
import { getFromSite, siteAnswer } from '../support/service';
import { runCli } from './run';
import { aliceSite, ciEnvironment, useCliSession } from './session';

/** `sitehost protect` and `sitehost share` against the shared service, black-box (./session.ts). */

const session = useCliSession();
const as = (userToken: string) => ciEnvironment(session, userToken);
const site = 'cli-share.example';

beforeAll(() => aliceSite(session, 'share', site, { 'index.html': 'members page', 'docs/index.html': 'docs' }));

describe('sitehost protect and share', () => {
  it("keeps the site to members, shares a page of it, and signs every visitor out; a stranger's share is refused", async () => {
    expect((await getFromSite(session.service, site, '/')).status).toBe(200);
    const set = await runCli(['protect', site, '--site', 'members', '--json'], { env: as(session.alice) });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ previews: 'members', site: 'members', passwordSet: false });
    expect((await runCli(['protect', site], { env: as(session.alice) })).stdout).toContain(`${site}: previews members, site members.`);
    expect((await getFromSite(session.service, site, '/')).status).toBe(401);

    const shared = await runCli(['share', site, '--path', '/docs/', '--expires', '2h', '--json'], { env: as(session.alice) });
    expect(shared.code, shared.stderr).toBe(0);
    const link = JSON.parse(shared.stdout) as { url: string; expiresAt: string; protected: boolean };
    expect(link.protected).toBe(true);
    const opened = await siteAnswer(session.service, site, `${new URL(link.url).pathname}${new URL(link.url).search}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/docs/');
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    expect((await siteAnswer(session.service, site, '/docs/', { cookie })).body).toBe('docs');

    const revoked = await runCli(['share', 'revoke', site], { env: as(session.alice) });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await siteAnswer(session.service, site, '/docs/', { cookie })).status).toBe(401);

    const stranger = await runCli(['share', site], { env: as(session.bob) });
    expect(stranger.code).toBe(5);
    const badExpiry = await runCli(['share', site, '--expires', 'soon'], { env: as(session.alice) });
    expect(badExpiry.code).toBe(2);
    expect(badExpiry.stderr).toContain('--expires takes a duration');
  });
});
