import pc from 'picocolors';
import type { ApiClient } from '../api.ts';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { printJson } from '../format.ts';
import { terminalSafe } from '../../src/common/control-characters.ts';
import type { ShareLink, SiteProtectionView } from '../../src/common/protection-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

/** What a link opens: the site's domain, one deployment's own host, or an alias host. */
export interface ShareTarget {
  deployment?: string;
  alias?: string;
}

/** `--expires`: `90m`, `12h`, `7d` or seconds. */
export function expiresInOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new CliError('usage', `--expires takes a duration such as 90m, 12h or 7d, not ${JSON.stringify(text)}.`);
  return Number(match[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
}

/** Asks the service for a share link of `domain`'s host. */
export function mintShareLink(api: ApiClient, domain: string, target: ShareTarget, options: { path?: string; expiresIn?: number } = {}): Promise<ShareLink> {
  const body = {
    ...(target.deployment ? { deploymentId: target.deployment } : {}),
    ...(target.alias ? { alias: target.alias } : {}),
    ...(options.path ? { path: options.path } : {}),
    ...(options.expiresIn ? { expiresIn: options.expiresIn } : {}),
  };
  return api.json<ShareLink>(sitePath(domain, '/share'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** `sitehost share <domain>`: a link that lets whoever opens it see the site (or a preview) until it expires. */
export async function share(domain: string, options: ShareTarget & { path?: string; expires?: string; json?: boolean }): Promise<void> {
  const api = await connect();
  const link = await mintShareLink(api, domain, options, { path: options.path, expiresIn: expiresInOf(options.expires) });
  if (options.json) return printJson(link);
  console.log(`${pc.green('✔')} Share link, until ${terminalSafe(link.expiresAt)} UTC${link.protected ? '' : ' (the host is public now: anyone may open it without)'}:`);
  console.log(`  ${pc.cyan(terminalSafe(link.url))}`);
}

/** `sitehost share revoke <domain>`: every share link and password sign-in made so far stops working. */
export async function revokeShares(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  await api.request(sitePath(domain, '/share'), { method: 'DELETE' });
  if (options.json) return printJson({ domain, revoked: true });
  console.log(`${pc.green('✔')} Every share link and sign-in of ${pc.bold(domain)} is revoked.`);
}

/** `sitehost protect <domain>`: who may open the site's hosts; with no option, what it is now. */
export async function protect(domain: string, options: { previews?: string; site?: string; password?: string; json?: boolean }): Promise<void> {
  const api = await connect();
  const path = sitePath(domain, '/protection');
  let view: SiteProtectionView;
  if (options.previews === undefined && options.site === undefined && options.password === undefined) view = await api.json<SiteProtectionView>(path);
  else {
    const current = await api.json<SiteProtectionView>(path);
    const body = { previews: options.previews ?? current.previews, site: options.site ?? current.site, ...(options.password ? { password: options.password } : {}) };
    view = await api.json<SiteProtectionView>(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
  if (options.json) return printJson(view);
  console.log(`${pc.bold(domain)}: previews ${pc.bold(view.previews)}, site ${pc.bold(view.site)}${view.passwordSet ? ' (a password is set)' : ''}.`);
}
