import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { formatTimestamp, printJson } from '../format.ts';
import type { SiteSuspension } from '../../src/common/api-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

/** `sitehost admin suspend`: the site answers 451 and its owner cannot change it until `resume` (needs the admin scope). */
export async function suspendSite(domain: string, options: { reason: string; json?: boolean }): Promise<void> {
  const api = await connect();
  const suspension = await api.json<SiteSuspension>(sitePath(domain, '/suspension'), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reason: options.reason }),
  });
  if (options.json) return printJson(suspension);
  console.log(`${pc.green('✔')} Suspended ${pc.bold(domain)} since ${formatTimestamp(suspension.since)}: it answers 451 until resumed.`);
  console.log(`${pc.dim('reason'.padEnd(12))}${suspension.reason}`);
}

/** `sitehost admin resume`: lifts the suspension. */
export async function resumeSite(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(sitePath(domain, '/suspension'), { method: 'DELETE' });
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
