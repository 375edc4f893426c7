import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { formatTimestamp, printJson, table } from '../format.ts';
import { siteUrl } from '../../src/common/site-url.ts';
import { confirm } from '../input.ts';
import type { Site } from '../../src/common/api-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

export async function listSites(options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const sites = await api.json<Site[]>('/v2/sites');
  if (options.json) return printJson(sites);
  if (sites.length === 0) return console.log('No sites yet: publish one with `sitehost deploy <dir> --domain <domain>`.');
  const rows = sites.map((site) => [terminalSafe(site.domain), formatTimestamp(site.modified), terminalSafe(siteUrl(new URL(api.origin), site.domain))]);
  console.log(table(['DOMAIN', 'MODIFIED', 'URL'], rows));
}

export async function deleteSite(domain: string, options: { yes?: boolean; json?: boolean }): Promise<void> {
  if (!options.yes) {
    if (!process.stdin.isTTY) throw new CliError('usage', `Refusing to delete ${domain} without --yes when not on a terminal.`);
    if (!(await confirm(`Delete ${domain} and all of its files?`))) throw new CliError('usage', 'Cancelled; nothing was deleted.');
  }
  const api = await connect();
  const response = await api.request(sitePath(domain), { method: 'DELETE' });
  await response.body?.cancel();
  if (options.json) return printJson({ domain, deleted: true });
  console.log(`${pc.green('✔')} Deleted ${pc.bold(domain)}.`);
}
