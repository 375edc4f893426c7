import pc from 'picocolors';
import type { RequestOptions } from '../api.ts';
import { connect } from '../credentials.ts';
import { count, formatTimestamp, printJson } from '../format.ts';
import type { SiteSuspension, UserSuspension } from '../../src/common/api-types.ts';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { sitePath } from '../../src/common/site-paths.ts';

const suspensionRequest = (method: 'PUT' | 'DELETE', reason?: string): RequestOptions =>
  reason === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason }) };

/** A user's suspension resource: the id percent-encoded (`github|12345` → `github%7C12345`). */
const userSuspensionPath = (userId: string) => `/v2/users/${encodeURIComponent(userId)}/suspension`;

/** `sitehost admin suspend`: the site answers 451 and its owner cannot change it until `resume` (needs the admin scope). */
export async function suspendSite(domain: string, options: { reason: string; json?: boolean }): Promise<void> {
  const api = await connect();
  const suspension = await api.json<SiteSuspension>(sitePath(domain, '/suspension'), suspensionRequest('PUT', options.reason));
  if (options.json) return printJson(suspension);
  console.log(`${pc.green('✔')} Suspended ${pc.bold(domain)} since ${formatTimestamp(suspension.since)}: it answers 451 until resumed.`);
  console.log(`${pc.dim('reason'.padEnd(12))}${terminalSafe(suspension.reason)}`);
}

/** `sitehost admin resume`: lifts the suspension. */
export async function resumeSite(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(sitePath(domain, '/suspension'), suspensionRequest('DELETE'));
  await response.body?.cancel();
  if (options.json) return printJson({ domain, resumed: true });
  console.log(`${pc.green('✔')} Resumed ${pc.bold(domain)}: it is served again, and its owner may change it.`);
}

/** `sitehost admin replay`: the site's follow-ups kept as dead letters run again (docs/operating.md). */
export async function replayDeadLetters(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const replayed = await api.json<{ domain: string; replayed: number }>(sitePath(domain, '/dead-letters/replay'), { method: 'POST' });
  if (options.json) return printJson(replayed);
  console.log(`${pc.green('✔')} Replayed ${replayed.replayed} dead follow-up${replayed.replayed === 1 ? '' : 's'} of ${pc.bold(domain)}.`);
}

/** `sitehost admin suspend-user`: every site of the user answers 451, and they claim and change nothing until `resume-user`. */
export async function suspendUser(userId: string, options: { reason: string; json?: boolean }): Promise<void> {
  const api = await connect();
  const suspension = await api.json<UserSuspension>(userSuspensionPath(userId), suspensionRequest('PUT', options.reason));
  if (options.json) return printJson(suspension);
  const sites = suspension.domains.length === 0 ? 'they own no site' : `${count(suspension.domains.length, 'site')} answer 451`;
  console.log(`${pc.green('✔')} Suspended the user ${pc.bold(terminalSafe(suspension.userId))} since ${formatTimestamp(suspension.since)}: ${sites}, and they can claim and change nothing until resumed.`);
  console.log(`${pc.dim('reason'.padEnd(12))}${terminalSafe(suspension.reason)}`);
  if (suspension.domains.length > 0) console.log(`${pc.dim('sites'.padEnd(12))}${terminalSafe(suspension.domains.join(', '))}`);
}

/** `sitehost admin resume-user`: lifts the user's suspension. */
export async function resumeUser(userId: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(userSuspensionPath(userId), suspensionRequest('DELETE'));
  await response.body?.cancel();
  if (options.json) return printJson({ userId, resumed: true });
  console.log(`${pc.green('✔')} Resumed the user ${pc.bold(terminalSafe(userId))}: their sites are served again, and they may change them.`);
}
