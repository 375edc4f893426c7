/** What an operator (a token with the `admin` scope) does to any site: suspend it, lift the suspension, unpublish it, replay its dead follow-ups, reconcile it with D1 after a restore. */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope } from '../auth/middleware';
import { recheckCaller } from './current-credential';
import { siteCoordinator } from '../coordinator/coordinator-client';
import type { SiteSuspension } from '../common/api-types';
import { controlCharacterIn } from '../common/control-characters';
import { readJsonBody } from '../http/json-body';
import { isObject } from '../http/merge-patch';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { log } from '../platform/log';
import type { Suspension } from '../storage/sites-table';
import { domainParam } from './domain-param';
import { purgeNotice } from './purge-notice';

/** What an operator may write as a suspension's reason: a sentence or a short paragraph for the owner, with a reference. */
export const maxReasonLength = 1000;

/**
 * The `reason` of `{"reason": "…"}` suspending a `site` or a `user`, trimmed: 400 for any other
 * shape or a control character other than tab and line breaks (the reason is printed on the
 * owner's terminal), 413 past `maxReasonLength` characters.
 */
export function reasonOf(body: unknown, suspended: 'site' | 'user'): string {
  if (!isObject(body)) throw new Problem('invalid-request', 'The body must be a JSON object like {"reason": "…"}.');
  const others = Object.keys(body).filter((name) => name !== 'reason');
  if (others.length > 0) {
    throw new Problem('invalid-request', `A suspension has only a reason; ${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} not one of its members.`, {
      errors: others.map((name) => ({ pointer: `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'is not a member of a suspension' })),
    });
  }
  const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
  const owner = suspended === 'site' ? 'the owner reads it' : 'they read it';
  if (reason === '') {
    throw new Problem('invalid-request', `Say why the ${suspended} is suspended: {"reason": "…"}; ${owner}.`, {
      errors: [{ pointer: '/reason', message: 'must be a string that is not empty' }],
    });
  }
  const control = controlCharacterIn(reason, { tab: true, lineBreaks: true });
  if (control) {
    throw new Problem('invalid-request', `The suspension's "reason" holds the control character ${control}; only tab and line breaks (LF, CR LF) are allowed.`, {
      errors: [{ pointer: '/reason', message: `holds the control character ${control}` }],
    });
  }
  const length = [...reason].length;
  if (length > maxReasonLength) {
    throw new Problem('payload-too-large', `A suspension's reason is at most ${maxReasonLength} characters; this one has ${length}.`, {
      extensions: { limit: 'MAX_SUSPENSION_REASON_LENGTH', value: maxReasonLength },
    });
  }
  return reason;
}

export function suspensionView(suspension: Suspension): SiteSuspension {
  return { reason: suspension.reason, since: timestamp(suspension.since) };
}

/** An operator's act, logged with who did it: the events say what happened, the log who asked. */
export function logOperator(c: Context<AppEnv>, message: string, fields: Record<string, unknown>): void {
  log.info(message, { by: c.get('principal').userId, ...fields });
}

export const operators = new Hono<AppEnv>();

resource(operators, '/v2/sites/:domain/suspension', {
  PUT: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const reason = reasonOf(await readJsonBody(c.req.raw, 'application/json'), 'site');
      const suspended = await siteCoordinator(c.env, domain, purgeNotice(c)).suspend(domain, reason);
      logOperator(c, 'A site was suspended', { domain, reason });
      return c.json(suspensionView(suspended.suspension), suspended.created ? 201 : 200);
    },
  ],
  DELETE: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      await siteCoordinator(c.env, domain, purgeNotice(c)).resume(domain);
      logOperator(c, "A site's suspension was lifted", { domain });
      return c.body(null, 200);
    },
  ],
});

/** Replays the site's follow-ups that spent their attempts, kept as dead letters (docs/operating.md): due again now, with their attempts afresh. */
resource(operators, '/v2/sites/:domain/dead-letters/replay', {
  POST: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const replayed = await siteCoordinator(c.env, domain).replayDeadLetters(domain);
      logOperator(c, "A site's dead follow-ups were replayed", { domain, replayed });
      return c.json({ domain, replayed });
    },
  ],
});

/**
 * Reconciles the site's coordinator with D1 after D1 was restored to an earlier minute or the
 * coordinator's storage was lost (docs/operating.md): its live record read again and purged, its
 * bytes counted from what it holds; answers each user's bytes on it.
 */
resource(operators, '/v2/sites/:domain/reconcile', {
  POST: [
    requireScope('admin'),
    recheckCaller,
    async (c) => {
      const domain = domainParam(c);
      const reconciled = await siteCoordinator(c.env, domain).reconcile(domain);
      logOperator(c, 'A site was reconciled with D1', { domain, bytes: reconciled.bytes });
      return c.json(reconciled);
    },
  ],
});

/** Unpublishes any site, for an operator: `DELETE /v2/sites/<domain>` with the admin scope (src/api/sites.ts). */
export async function unpublishAsOperator(c: Context<AppEnv>, domain: string): Promise<void> {
  await siteCoordinator(c.env, domain, purgeNotice(c)).unpublish(domain, 'operator');
  logOperator(c, 'A site was unpublished by an operator', { domain });
}
