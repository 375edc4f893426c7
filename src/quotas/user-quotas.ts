/**
 * Each user's quotas and the problems that answer a change over one. A count or a size over its
 * quota is a 403 `quota-exceeded`, a rate a 429 with `Retry-After`; each names its setting, with
 * `limit` (the setting), `value` (its value) and `used` (what the user uses of it).
 */
import { Problem } from '../http/problem';
import { type UserQuotas, settingsOf } from '../platform/settings';
import type { Env } from '../platform/env';
import { type QuotaLimits, type Usage, hourMs } from '../storage/usage-ledger';
import { formatBytes } from '../common/format-bytes';

export function userQuotas(env: Env): UserQuotas & QuotaLimits {
  return settingsOf(env).quotas;
}

function quotaExceeded(detail: string, limit: string, value: number, used: number): Problem {
  return new Problem('quota-exceeded', `${detail} (${limit} is ${value}).`, { extensions: { limit, value, used } });
}

/** 403: a new domain would take the user past MAX_SITES_PER_USER. */
export function tooManySites(quotas: UserQuotas, usage: Usage): Problem {
  const used = usage.sites + usage.reservedSites;
  return quotaExceeded(`You own ${used} sites, as many as you may: unpublish one to deploy to a new domain`, 'MAX_SITES_PER_USER', quotas.maxSites, used);
}

/** 403: storing `adding` bytes more would take the user past MAX_USER_BYTES. */
export function tooManyBytes(quotas: UserQuotas, usage: Usage, adding: number): Problem {
  const used = usage.bytes + usage.reservedBytes;
  return quotaExceeded(
    `This change stores ${formatBytes(adding)} more, and your sites store ${formatBytes(used)} of the ${formatBytes(quotas.maxBytes)} you may: unpublish a site, or keep fewer deployments`,
    'MAX_USER_BYTES',
    quotas.maxBytes,
    used,
  );
}

/** Whole seconds until `ms` have passed, at least 1: a Retry-After. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** 429: the user began DEPLOYS_PER_HOUR deploys within the last hour. */
export function tooManyDeploys(quotas: UserQuotas, usage: Usage): Problem {
  const retryAfter = retryAfterSeconds(usage.nextDeployFreesInMs ?? hourMs);
  return new Problem(
    'rate-limited',
    `You began ${usage.deploysLastHour} deploys within the last hour, as many as you may; the next may begin in ${retryAfter} s (DEPLOYS_PER_HOUR is ${quotas.deploysPerHour}).`,
    { extensions: { limit: 'DEPLOYS_PER_HOUR', value: quotas.deploysPerHour, used: usage.deploysLastHour }, headers: { 'retry-after': String(retryAfter) } },
  );
}
