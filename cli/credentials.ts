import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiClient, type Credentials } from './api.ts';
import { CliError } from './errors.ts';
import { exchangeGithubIdToken, inGithubActions } from './github-actions.ts';

/**
 * Where `sitehost login` keeps the origin and token: `$XDG_CONFIG_HOME/sitehost/config.json`,
 * `%APPDATA%\sitehost\config.json` on Windows, else `~/.config/sitehost/config.json`.
 */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'sitehost', 'config.json');
}

/** Accepts `https://host[:port][/prefix]`; returns it without a trailing slash. */
export function normaliseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError('usage', `${JSON.stringify(value)} is not a URL; expected something like https://api.example.net.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CliError('usage', `The API origin must be an http or https URL, not ${JSON.stringify(value)}.`);
  }
  if (url.search || url.hash) throw new CliError('usage', `The API origin ${JSON.stringify(value)} must not have a query or fragment.`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

async function readStored(path: string): Promise<Partial<Credentials>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError('failure', `Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const stored: unknown = JSON.parse(text);
    if (typeof stored !== 'object' || stored === null) throw new TypeError('not an object');
    const { origin, token } = stored as Record<string, unknown>;
    return { origin: typeof origin === 'string' ? origin : undefined, token: typeof token === 'string' ? token : undefined };
  } catch (error) {
    throw new CliError('failure', `${path} is not valid JSON; run \`sitehost login\` again.`, { cause: error });
  }
}

/**
 * The credentials to use: `SITEHOST_ORIGIN` and `SITEHOST_TOKEN` win over the stored login; with
 * no `SITEHOST_TOKEN` in a GitHub Actions job allowed an ID token, the job's identity exchanged,
 * for `domain` when the command names one (only its trust policy is matched).
 */
async function loadCredentials(env: NodeJS.ProcessEnv = process.env, domain?: string): Promise<Credentials> {
  const stored = await readStored(configFilePath(env));
  const origin = env.SITEHOST_ORIGIN || stored.origin;
  if (!env.SITEHOST_TOKEN && origin && inGithubActions(env)) {
    const normalised = normaliseOrigin(origin);
    return { origin: normalised, token: await exchangeGithubIdToken(normalised, env, domain) };
  }
  const token = env.SITEHOST_TOKEN || stored.token;
  if (!origin || !token) {
    throw new CliError('auth', 'Not logged in: run `sitehost login`, or set SITEHOST_ORIGIN and SITEHOST_TOKEN.');
  }
  return { origin: normaliseOrigin(origin), token };
}

/** The API origin the CLI would talk to (`SITEHOST_ORIGIN`, else the stored login's), without a token; undefined without either. */
export async function knownOrigin(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const origin = env.SITEHOST_ORIGIN || (await readStored(configFilePath(env))).origin;
  return origin ? normaliseOrigin(origin) : undefined;
}

/** Writes the login readable by the user only (0600), replacing the file in one step. */
export async function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = configFilePath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}

/** Removes the stored login; returns whether there was one. */
export async function forgetCredentials(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const path = configFilePath(env);
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** An API client for the current login; in a GitHub Actions job, for the site `domain` when one is named. */
export async function connect(domain?: string): Promise<ApiClient> {
  return new ApiClient(await loadCredentials(process.env, domain));
}
