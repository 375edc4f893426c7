import { decodeJwt } from 'jose';
import { text } from 'node:stream/consumers';
import pc from 'picocolors';
import { ApiClient } from '../api.ts';
import { configFilePath, forgetCredentials, normaliseOrigin, saveCredentials } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { promptSecret } from '../input.ts';

export interface LoginOptions {
  origin: string;
  token?: string;
}

/** The token's subject, shown after login; the server has already accepted the token. */
function subjectOf(token: string): string | undefined {
  try {
    return decodeJwt(token).sub;
  } catch {
    return undefined;
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
  const scopeWarning = await new ApiClient({ origin, token }).request('/v2/sites').then(
    async (response) => void (await response.body?.cancel()),
    (error: unknown) => {
      if (error instanceof CliError && error.kind === 'auth' && error.status === 403) return error.message;
      throw error;
    },
  );
  const path = await saveCredentials({ origin, token });
  const subject = subjectOf(token);
  console.log(`${pc.green('✔')} Logged in to ${origin}${subject ? ` as ${subject}` : ''}; saved in ${path}.`);
  if (scopeWarning) console.error(pc.yellow(`Note: ${scopeWarning}`));
}

export async function logout(): Promise<void> {
  const removed = await forgetCredentials();
  console.log(removed ? `Logged out; removed ${configFilePath()}.` : 'Not logged in.');
}
