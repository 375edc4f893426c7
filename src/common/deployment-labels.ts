// What tells deployments apart besides their files (docs/design.md, "Deployments"): a message,
// an alias and the client that made them. Shared by the Worker (which checks them), the CLI and
// the dashboard (which send them): it imports only its siblings and uses only erasable TypeScript.
import { controlCharacterIn } from './control-characters.ts';

/** The most characters (Unicode code points) a deployment's message may have: `MAX_MESSAGE_LENGTH`. */
export const maxMessageLength = 1000;

/** The most characters an alias may have; it leaves room in its host's one DNS label for the site's own part. */
export const maxAliasLength = 32;

/** Who made a deployment: the `sitehost` CLI, the dashboard, or anything else that called the API. */
export type DeploymentClient = 'cli' | 'dashboard' | 'api';

/** The request header a client names itself in: `cli/<version>` or `dashboard`. Absent or other: `api`. */
export const clientHeader = 'sitehost-client';

/** The client a `Sitehost-Client` header value names (`cli/1.2.0`: `cli`). */
export function clientOf(header: string | null): DeploymentClient {
  const name = header?.trim().split('/')[0]?.toLowerCase();
  return name === 'cli' || name === 'dashboard' ? name : 'api';
}

/** Characters of the domain's hash that end an alias host's first label (src/content/label-checks.ts). */
export const aliasHashLength = 13;

/**
 * What the hash that ends an alias host is, for the people who see it (`-et2xe7csnokjf` of
 * `feature-x--portfolio-example-et2xe7csnokjf.preview.example.net`), or undefined for a URL
 * without one.
 */
export function aliasHostNote(domain: string, aliasUrl: string): string | undefined {
  const label = new URL(aliasUrl).hostname.split('.')[0] ?? '';
  const hash = label.slice(-aliasHashLength - 1);
  if (!label.includes('--') || !new RegExp(`^-[a-z2-7]{${aliasHashLength}}$`).test(hash)) return undefined;
  return `Alias addresses of ${domain} end in ${hash}, a hash of the domain: it keeps them apart from other sites' whose names read alike once dots become hyphens and long names are cut to fit one DNS label (a-b.com, a.b.com).`;
}

/** Lower-case letters, digits and single hyphens, starting and ending with a letter or digit. */
const aliasPattern = /^[a-z0-9](?:-?[a-z0-9])*$/;

/** Why `alias` is no alias, or undefined when it is one. */
export function aliasProblem(alias: string): string | undefined {
  if (alias.length > maxAliasLength) return `it is ${alias.length} characters long; an alias is at most ${maxAliasLength}`;
  if (!aliasPattern.test(alias)) return 'an alias is lower-case letters, digits and single hyphens, starting and ending with a letter or digit';
  return undefined;
}

/**
 * An alias made of any name, as Cloudflare Pages makes a branch alias of a branch name: lower case,
 * every run of other characters one hyphen, trimmed, at most `maxAliasLength` characters.
 * `feature/Login_Form` becomes `feature-login-form`; a name with no letter or digit becomes ''.
 */
export function aliasFrom(name: string): string {
  const slug = (text: string) => text.replace(/^-+|-+$/g, '');
  return slug(slug(name.toLowerCase().replace(/[^a-z0-9]+/g, '-')).slice(0, maxAliasLength));
}

/**
 * Why `message` is no message: too long, or a control character other than tab and line breaks
 * (LF, or CR LF: a lone CR overwrites the line it ends on a terminal, ESC and BEL make escape sequences).
 */
export function messageProblem(message: string): string | undefined {
  const length = [...message].length;
  if (length > maxMessageLength) return `it is ${length} characters long; a message is at most ${maxMessageLength} (MAX_MESSAGE_LENGTH)`;
  const control = controlCharacterIn(message, { tab: true, lineBreaks: true });
  if (control) return `it holds the control character ${control}; only tab and line breaks (LF, CR LF) are allowed`;
  return undefined;
}

/** A message's first line, cut to `width` characters with an ellipsis: how lists show it. */
export function messageSummary(message: string | null, width: number): string {
  if (!message) return '';
  const line = message.trim().split(/\r?\n/)[0] ?? '';
  const characters = [...line];
  return characters.length <= width ? line : `${characters.slice(0, width - 1).join('')}…`;
}
