import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { formatTimestamp, printJson, table } from '../format.ts';
import type { SiteMember, SiteMembers } from '../../src/common/api-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

const roles = ['deployer', 'viewer'];

const memberPath = (domain: string, userId: string) => sitePath(domain, `/members/${encodeURIComponent(userId)}`);

/** `sitehost members add`: gives `userId` a role on the site (the owner only); again, changes the role. */
export async function addMember(domain: string, userId: string, options: { role: string; json?: boolean }): Promise<void> {
  if (!roles.includes(options.role)) throw new CliError('usage', `--role is deployer or viewer, not ${JSON.stringify(options.role)}.`);
  const api = await connect();
  const member = await api.json<SiteMember>(memberPath(domain, userId), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role: options.role }),
  });
  if (options.json) return printJson(member);
  const can = member.role === 'deployer' ? 'deploy it, edit its configuration and files, and activate its deployments' : 'read its configuration, files, deployments and info';
  console.log(`${pc.green('✔')} ${pc.bold(member.userId)} is a ${member.role} of ${pc.bold(domain)}: they may ${can}.`);
}

export async function listMembers(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const listed = await api.json<SiteMembers>(sitePath(domain, '/members'));
  if (options.json) return printJson(listed);
  const rows = [listed.owner, ...listed.members].map((member) => [member.userId, member.role, formatTimestamp(member.addedAt)]);
  console.log(table(['USER', 'ROLE', 'SINCE'], rows));
}

export async function removeMember(domain: string, userId: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(memberPath(domain, userId), { method: 'DELETE' });
  await response.body?.cancel();
  if (options.json) return printJson({ domain, userId, removed: true });
  console.log(`${pc.green('✔')} ${pc.bold(userId)} is no longer a member of ${pc.bold(domain)}.`);
}
