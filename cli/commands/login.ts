import { decodeJwt } from 'jose';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { text } from 'node:stream/consumers';
import pc from 'picocolors';
import { ApiClient } from '../api.ts';
import { configFilePath, connect, forgetCredentials, normaliseOrigin, saveCredentials } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { count, formatTimestamp, printJson } from '../format.ts';
import type { Identity } from '../../src/common/api-types.ts';
import { promptSecret } from '../input.ts';

export interface LoginOptions {
  origin: string;
  token?: string;
  json?: boolean;
}

/** The token's subject, shown after login; the server has already accepted the token. An API token (not a JWT) is asked about. */
async function subjectOf(api: ApiClient, token: string): Promise<string | undefined> {
  try {
    return decodeJwt(token).sub;
  } catch {
    return (await api.json<Identity>('/v2/whoami')).userId;
  }
}

async function readToken(options: LoginOptions): Promise<string> {
  if (options.token) return options.token;
  const token = process.stdin.isTTY ? await promptSecret('Token: ') : (await text(process.stdin)).trim();
  if (!token) throw new CliError('usage', 'No token given: pass --token, type it when asked, or pipe it on standard input.');
  return token;
}

export async function login(options: LoginOptions): Promise<void> {
  const origin = normaliseOrigin(options.origin);
  const token = await readToken(options);
  // Any answer but 401 proves the token valid; one without the deploy scope may still follow events.
  const api = new ApiClient({ origin, token });
  const scopeWarning = await api.request('/v2/sites').then(
    async (response) => void (await response.body?.cancel()),
    (error: unknown) => {
      if (error instanceof CliError && error.kind === 'auth' && error.status === 403) return error.message;
      throw error;
    },
  );
  const path = await saveCredentials({ origin, token });
  const subject = await subjectOf(api, token);
  if (options.json) return printJson({ origin, userId: subject ?? null, configFile: path, ...(scopeWarning ? { warning: scopeWarning } : {}) });
  console.log(`${pc.green('✔')} Logged in to ${origin}${subject ? ` as ${terminalSafe(subject)}` : ''}; saved in ${path}.`);
  if (scopeWarning) console.error(pc.yellow(`Note: ${terminalSafe(scopeWarning)}`));
}

export async function logout(options: { json?: boolean }): Promise<void> {
  const removed = await forgetCredentials();
  if (options.json) return printJson({ loggedOut: removed, configFile: configFilePath() });
  console.log(removed ? `Logged out; removed ${configFilePath()}.` : 'Not logged in.');
}

/** "in 59 minutes", "2 days ago": how far `at` is from now, roughly. */
function fromNow(at: number): string {
  const minutes = Math.round((at - Date.now()) / 60_000);
  const [amount, unit] = Math.abs(minutes) >= 2880 ? [Math.round(minutes / 1440), 'day'] : Math.abs(minutes) >= 120 ? [Math.round(minutes / 60), 'hour'] : [minutes, 'minute'];
  const span = count(Math.abs(amount), unit);
  return amount >= 0 ? `in ${span}` : `${span} ago`;
}

/** Who the token is, as the service verified it (`GET /v2/whoami`): a token it refuses is an auth error. */
export async function whoami(options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const identity = await api.json<Identity>('/v2/whoami');
  if (options.json) return printJson({ ...identity, origin: api.origin });
  const expires = new Date(`${identity.expiresAt}Z`).getTime();
  const lines: [string, string][] = [
    ['user', pc.bold(terminalSafe(identity.userId))],
    ['scopes', terminalSafe(identity.scopes.join(', ')) || pc.yellow('none')],
    ['expires', `${formatTimestamp(identity.expiresAt)} (${fromNow(expires)})`],
    ['issuer', terminalSafe(identity.issuer)],
    // An API token (`sitehost tokens`): which one, and the sites it is limited to.
    ...(identity.tokenId === undefined ? [] : ([['token', terminalSafe(identity.tokenId)], ['sites', terminalSafe(identity.sites?.join(', ') ?? 'all of yours')]] as [string, string][])),
    // What it is there at most: a deployer (a CI identity, or a site token without role owner) or their owner.
    ...(identity.role ? [['role', `${identity.role}${identity.via === 'github-oidc' ? ' (GitHub Actions)' : ''}`] as [string, string]] : []),
    ['service', api.origin],
    ...(identity.suspension
      ? [['suspended', pc.red(`since ${formatTimestamp(identity.suspension.since)}: ${terminalSafe(identity.suspension.reason)}`)] as [string, string]]
      : []),
  ];
  for (const [name, value] of lines) console.log(`${pc.dim(name.padEnd(11))}${value}`);
}
