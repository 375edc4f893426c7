/**
 * `/v2/sites/<domain>/members`: who besides its owner may reach a site (docs/api.md, "Members").
 * The owner adds and removes members; the owner and the members list them. The coordinator
 * checks the owner as it commits (src/coordinator/access/access-changes.ts).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import type { SiteMember } from '../common/api-types';
import { type MemberRole, memberRoles } from '../coordinator/access/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { type MemberRecord, membersOf } from '../storage/members-table';
import { recheckCaller } from './current-credential';
import { domainParam } from './domain-param';
import { readableSite, requesterOf } from './site-access';

export const members = new Hono<AppEnv>();

/** A user id as tokens carry it (`sub`): printable, at most this long. */
const maxUserIdLength = 255;

function userIdParam(raw: string | undefined): string {
  const userId = raw ?? '';
  // eslint-disable-next-line no-control-regex
  if (userId === '' || userId.length > maxUserIdLength || /[\u0000-\u001f\u007f]/.test(userId)) {
    throw new Problem('invalid-request', `A member is named by a user id of 1 to ${maxUserIdLength} printable characters, as its tokens' "sub" (see GET /v2/whoami).`);
  }
  return userId;
}

function roleOf(body: unknown): MemberRole {
  const role = (body as { role?: unknown } | null)?.role;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !memberRoles.includes(role as MemberRole)) {
    throw new Problem('invalid-request', `Send {"role": ${memberRoles.map((r) => `"${r}"`).join(' or ')}}${role === undefined ? '' : `, not ${JSON.stringify(role)}`}.`);
  }
  return role as MemberRole;
}

function view(member: MemberRecord): SiteMember {
  return { userId: member.userId, role: member.role, addedAt: timestamp(member.added) };
}

resource(members, '/v2/sites/:domain/members', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      const site = await readableSite(c, domain);
      const listed = await membersOf(c.env.DB, domain);
      return c.json({ owner: { userId: site.userId, role: 'owner', addedAt: timestamp(site.created) }, members: listed.map(view) });
    },
  ],
});

resource(members, '/v2/sites/:domain/members/:userId', {
  PUT: [
    requireScope('deploy'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const userId = userIdParam(c.req.param('userId'));
      const role = roleOf(await readJsonBody(c.req.raw, 'application/json'));
      const answer = await siteCoordinator(c.env, domain).changeAccess(domain, requesterOf(c.get('principal')), { kind: 'member-put', userId, role });
      const { member, created } = answer as { member: MemberRecord; created: boolean };
      return c.json(view(member), created ? 201 : 200);
    },
  ],
  DELETE: [
    requireScope('deploy'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const userId = userIdParam(c.req.param('userId'));
      await siteCoordinator(c.env, domain).changeAccess(domain, requesterOf(c.get('principal')), { kind: 'member-remove', userId });
      return c.body(null, 204);
    },
  ],
});
