import pc from 'picocolors';
import { configFilePath, connect, forgetCredentials } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { formatTimestamp, printJson, table } from '../format.ts';
import { confirm } from '../input.ts';
import type { ApiToken, CreatedApiToken, SignOut } from '../../src/common/api-types.ts';

export interface CreateTokenOptions {
  name: string;
  scope: string;
  site: string[];
  role?: string;
  expires?: string;
  json?: boolean;
}

const dayMs = 86_400_000;

/** `--expires`: `30d` (days from now) or a UTC timestamp as the API writes them, which the service checks. */
function expiresAtOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const days = /^(\d{1,5})d$/.exec(value.trim());
  return days ? new Date(Date.now() + Number(days[1]) * dayMs).toISOString().slice(0, 23) : value.trim();
}

/**
 * `sitehost tokens create`: the token alone on standard output (so `T=$(sitehost tokens create …)`
 * holds it), what it is on standard error; with --json, the whole answer. It is shown this once.
 */
export async function createToken(options: CreateTokenOptions): Promise<void> {
  const api = await connect();
  const scopes = options.scope.split(',').map((scope) => scope.trim()).filter(Boolean);
  const body = {
    name: options.name,
    scopes,
    ...(options.site.length > 0 ? { sites: options.site } : {}),
    ...(options.role ? { role: options.role } : {}),
    ...(options.expires ? { expiresAt: expiresAtOf(options.expires) } : {}),
  };
  const made = await api.json<CreatedApiToken>('/v2/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (options.json) return printJson(made);
  const reach = made.sites ? `the sites ${made.sites.join(', ')} as ${made.role === 'owner' ? 'their owner' : 'a deployer at most'}` : 'all of your sites';
  console.error(`${pc.green('✔')} Made the token ${pc.bold(made.name)} (${made.id}): ${made.scopes.join(', ')} on ${reach}, until ${formatTimestamp(made.expiresAt)}.`);
  console.error(pc.yellow('Copy it now: it is not shown again.'));
  console.log(made.token);
}

export async function listTokens(options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const { tokens } = await api.json<{ tokens: ApiToken[] }>('/v2/tokens');
  if (options.json) return printJson(tokens);
  if (tokens.length === 0) return console.log('No tokens: make one with `sitehost tokens create --name <name>`.');
  const rows = tokens.map((token) => [token.id, token.name, token.scopes.join(','), token.sites?.join(',') ?? 'all', formatTimestamp(token.expiresAt), token.lastUsedAt ? formatTimestamp(token.lastUsedAt) : 'never']);
  console.log(table(['ID', 'NAME', 'SCOPES', 'SITES', 'EXPIRES', 'LAST USED'], rows));
}

export async function revokeToken(id: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(`/v2/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
  await response.body?.cancel();
  if (options.json) return printJson({ id, revoked: true });
  console.log(`${pc.green('✔')} Revoked ${id}: refused everywhere within 30 seconds.`);
}

/** `sitehost logout --everywhere`: revokes every token of the user and every earlier JWT, then forgets the login here. */
export async function logoutEverywhere(options: { yes?: boolean; json?: boolean }): Promise<void> {
  if (!options.yes) {
    if (!process.stdin.isTTY) throw new CliError('usage', 'Refusing to sign out everywhere without --yes when not on a terminal.');
    if (!(await confirm('Revoke every token of yours, CI tokens included, and sign out everywhere?'))) throw new CliError('usage', 'Cancelled; nothing was revoked.');
  }
  const signOut = await (await connect()).json<SignOut>('/v2/tokens', { method: 'DELETE' });
  const removed = await forgetCredentials();
  if (options.json) return printJson({ ...signOut, loggedOut: removed, configFile: configFilePath() });
  console.log(`${pc.green('✔')} Signed out everywhere: revoked ${signOut.revoked} API token${signOut.revoked === 1 ? '' : 's'} and every token issued before ${formatTimestamp(signOut.signedOutBefore)}${removed ? `; removed ${configFilePath()}` : ''}.`);
}
