/**
 * What an operator does to a user rather than a site (docs/design.md#operators): suspend them,
 * see whether they are, and lift it. A suspended user's sites answer 451, on their domains and previews, and the user
 * claims and changes nothing. The suspension is one D1 row; each site's live record carries its
 * owner's (src/storage/sites-table.ts joins it), so serving reads it at no cost of its own, and
 * each of the user's coordinators is asked to take it into its live record and purge that from
 * every location before the answer.
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { recheckCaller } from './current-credential';
import type { UserSuspension } from '../common/api-types';
import { controlCharacterIn } from '../common/control-characters';
import { siteCoordinator } from '../coordinator/coordinator-client';
import type { UserEvent } from '../events/event';
import { publish } from '../events/notifications';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { type UserSuspensionRecord, getUserSuspensionRecord, putUserSuspension } from '../storage/user-suspensions';
import { listSitesOf } from '../storage/sites-table';
import { logOperator, reasonOf, suspensionView } from './operators';
import { purgeNotice } from './purge-notice';

/** The longest user id taken: a token's `sub` is an identity provider's id (`github|12345`, a UUID, an email). */
const maxUserIdLength = 255;
/** The user's coordinators asked at once: the runtime's simultaneous outgoing connections per request. */
const concurrentSites = 6;

/** The `<userId>` path parameter (percent-decoded): 400 when it is empty, too long or holds a control character. */
function userIdParam(c: Context<AppEnv>): string {
  const userId = c.req.param('userId') ?? '';
  if (userId === '' || [...userId].length > maxUserIdLength || controlCharacterIn(userId)) {
    throw new Problem('invalid-request', `A user id is 1 to ${maxUserIdLength} characters without control characters, percent-encoded in the path (github%7C12345).`);
  }
  return userId;
}

/**
 * Asks the coordinator of each of `userId`'s sites to take the user's suspension as D1 holds it
 * now into its live record, purged from every location before it answers. Repeated safely: an
 * operator's retry after a failure completes what a first attempt left. Then once more for the
 * sites that appeared meanwhile: a claim whose coordinator read the user's row just before this
 * request wrote it commits a moment later. Answers the domains.
 */
async function reachSites(c: Context<AppEnv>, userId: string): Promise<string[]> {
  const reached = new Set<string>();
  for (let pass = 0; pass < 2; pass++) {
    const waiting = (await listSitesOf(c.env.DB, userId)).map((site) => site.domain).filter((domain) => !reached.has(domain));
    const worker = async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        await siteCoordinator(c.env, domain, purgeNotice(c)).refreshOwner(domain);
        reached.add(domain);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrentSites, waiting.length) }, worker));
  }
  return [...reached].sort();
}

export const userSuspensions = new Hono<AppEnv>();

resource(userSuspensions, '/v2/users/:userId/suspension', {
  GET: [
    requireScope('admin'),
    async (c) => {
      const userId = userIdParam(c);
      const stored = await getUserSuspensionRecord(c.env.DB, userId);
      if (stored?.resumed !== null) throw new Problem('not-found', `The user ${userId} is not suspended.`);
      const body: UserSuspension = { userId, ...suspensionView(stored), domains: (await listSitesOf(c.env.DB, userId)).map((site) => site.domain) };
      return c.json(body);
    },
  ],
  PUT: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const userId = userIdParam(c);
      const reason = reasonOf(await readJsonBody(c.req.raw, 'application/json'), 'user');
      const stored = await getUserSuspensionRecord(c.env.DB, userId);
      const holding = stored?.resumed === null ? stored : null;
      // A new reason replaces the old and keeps `since`; the same reason again changes nothing, and its event is logged once.
      let record: UserSuspensionRecord = holding!;
      if (holding?.reason !== reason) {
        record = { reason, since: holding?.since ?? Date.now(), changeId: crypto.randomUUID(), resumed: null };
        await putUserSuspension(c.env.DB, userId, record);
      }
      const domains = await reachSites(c, userId);
      const event: UserEvent = { type: 'user-suspend', userId, reason, domains };
      await publish(c.env, { key: `user-suspend/${record.changeId}`, event });
      logOperator(c, 'A user was suspended', { userId, reason, sites: domains.length });
      const body: UserSuspension = { userId, ...suspensionView(record), domains };
      return c.json(body, holding ? 200 : 201);
    },
  ],
  DELETE: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const userId = userIdParam(c);
      const stored = await getUserSuspensionRecord(c.env.DB, userId);
      if (!stored) throw new Problem('not-found', `The user ${userId} is not suspended.`);
      if (stored.resumed === null) await putUserSuspension(c.env.DB, userId, { ...stored, resumed: Date.now() });
      // Lifted before: what a lift cut short left (its sites, its event) is done again, idempotently, then 404.
      const domains = await reachSites(c, userId);
      const event: UserEvent = { type: 'user-resume', userId, domains };
      await publish(c.env, { key: `user-resume/${stored.changeId}`, event });
      if (stored.resumed !== null) throw new Problem('not-found', `The user ${userId} is not suspended.`);
      logOperator(c, "A user's suspension was lifted", { userId, sites: domains.length });
      return c.body(null, 200);
    },
  ],
});
