import { InvalidDomainError, normaliseDomain } from '../common/domain-rules';
import { configurationLimits } from './configuration-limits';
import { locationBytes } from './header-bytes';
import { type Placeholder, type PlaceholderVariables, queryPlaceholderName, redirectPattern, redirectTarget } from './netlify-placeholders';
import { isTemplated } from './template-parts';
import { type FileRedirect, type QueryCondition, type RulesLine, percentFault, readRuleLines, rulesFileLimits, rulesFileProblem } from './rules-files';

/**
 * Reads a `_redirects` file in the syntax of Netlify and Cloudflare Pages:
 * `from [name=value …] to [status[!]] [Country=… Language=…]`, one rule a line, `#` comments.
 *
 * Written by hand: Netlify's parser (netlify-redirect-parser) reads files through Node's `fs`
 * and Cloudflare's (`parseRedirects`) ships only inside wrangler's and miniflare's bundles,
 * and neither reads the other's syntax whole (Pages has no `!`, queries or conditions; Netlify
 * reads no 1,000-character limit). test/rules/rules-files-reference.unit.test.ts holds
 * this one to Netlify's on a corpus of both hosts' documented forms.
 *
 * Any line it cannot read, or past a limit, throws a 400 naming the line: a deploy fails
 * rather than serve a site whose rules silently differ from what its author wrote.
 */
export function parseRedirectsFile(text: string): FileRedirect[] {
  const rules: FileRedirect[] = [];
  let statics = 0;
  let dynamics = 0;
  readRuleLines('_redirects', text, (line) => {
    const rule = parseRedirectLine(line);
    if (isTemplated(rule.from)) {
      if (++dynamics > rulesFileLimits.MAX_DYNAMIC_REDIRECTS) {
        throw rulesFileProblem('_redirects', line.number, `more than ${rulesFileLimits.MAX_DYNAMIC_REDIRECTS} rules with placeholders or "*".`, 'MAX_DYNAMIC_REDIRECTS');
      }
    } else if (++statics > rulesFileLimits.MAX_STATIC_REDIRECTS) {
      throw rulesFileProblem('_redirects', line.number, `more than ${rulesFileLimits.MAX_STATIC_REDIRECTS} rules without placeholders.`, 'MAX_STATIC_REDIRECTS');
    }
    rules.push(rule);
  });
  return rules;
}

/** As Netlify: a permanent redirect unless the line says otherwise (Cloudflare Pages defaults to 302). */
const defaultStatus = 301;
const statuses = new Set([200, 301, 302, 303, 307, 308, 404, 410]);
const absoluteUrl = /^(https?):\/\/([^/?#]*)([^?#]*)/i;

function parseRedirectLine({ text, number }: RulesLine): FileRedirect {
  const fail = (why: string) => rulesFileProblem('_redirects', number, why);
  const tokens = text.split(/\s+/);
  const comment = tokens.findIndex((token) => token.startsWith('#'));
  const [source = '', ...rest] = comment === -1 ? tokens : tokens.slice(0, comment);
  const { path, origin } = readFrom(source, fail);

  // `/blog/* 200`: Netlify's forward rule, the target being the path itself.
  const forward = rest.length > 0 && statusOf(rest[0]!) !== undefined && path.endsWith('/*');
  const toAt = forward ? -1 : rest.findIndex((token) => token.startsWith('/') || /^https?:\/\//i.test(token));
  if (!forward && toAt === -1) {
    throw fail(rest.length === 0 ? 'a rule needs a target after its path.' : 'the target must start with "/", "http://" or "https://".');
  }
  const target = forward ? `${path.slice(0, -1)}:splat` : rest[toAt]!;
  const [statusToken, ...conditionTokens] = rest.slice(toAt + 1);
  const status = statusToken === undefined ? { status: defaultStatus, force: false } : statusOf(statusToken);
  if (!status) throw fail(`"${statusToken}" is not a status this service redirects or rewrites with (${[...statuses].join(', ')}), optionally followed by "!".`);

  const pattern = redirectPattern(path);
  if (typeof pattern === 'string') throw fail(pattern);
  const queryPlaceholders: Placeholder[] = [];
  const query = rest.slice(0, Math.max(0, toAt)).map((token) => readQuery(token, pattern.variables, queryPlaceholders, fail));
  const placeholders = [...pattern.placeholders, ...queryPlaceholders];
  const rule: FileRedirect = { from: pattern.template, to: readTo(target, placeholders, status.status, fail), ...status };
  if (origin) rule.origin = origin;
  if (query.length > 0) rule.query = query;
  readConditions(conditionTokens, rule, fail);

  if (placeholders.length > configurationLimits.MAX_TEMPLATE_VARIABLES) {
    throw fail(`the path has ${placeholders.length} placeholders; at most ${configurationLimits.MAX_TEMPLATE_VARIABLES} are allowed.`);
  }
  if (locationBytes(rule.from, rule.to) > configurationLimits.MAX_HEADER_BYTES) {
    throw fail(`the target can expand to more than ${configurationLimits.MAX_HEADER_BYTES} bytes.`);
  }
  return rule;
}

function statusOf(token: string): { status: number; force: boolean } | undefined {
  const match = /^(\d{3})(!?)$/.exec(token);
  if (!match || !statuses.has(Number(match[1]))) return undefined;
  return { status: Number(match[1]), force: match[2] === '!' };
}

type Fail = (why: string) => Error;

/** The path of `from`, and the scheme and host of an absolute one (the site's other domains). */
function readFrom(source: string, fail: Fail): { path: string; origin?: FileRedirect['origin'] } {
  const absolute = absoluteUrl.exec(source);
  if (!absolute) {
    if (!source.startsWith('/')) throw fail('a rule starts with a path ("/…") or an absolute URL ("https://host/…").');
    if (/[?#]/.test(source)) throw fail('match query parameters as "name=value" after the path, not in it.');
    return { path: source };
  }
  if (/:[A-Za-z]|\*/.test(absolute[2]!)) throw fail(`"${absolute[2]}" is not a host name: a rule names one host, without placeholders.`);
  let host: string;
  try {
    // As every domain of the service: `bücher.example` is the `xn--bcher-kva.example` requests name.
    host = normaliseDomain(absolute[2]!);
  } catch (error) {
    if (error instanceof InvalidDomainError) throw fail(error.message);
    throw error;
  }
  if (source.length > absolute[0].length) throw fail('match query parameters as "name=value" after the URL, not in it.');
  return { path: absolute[3] || '/', origin: { protocol: `${absolute[1]!.toLowerCase()}:` as 'http:' | 'https:', host } };
}

/** `name=value` (the parameter must have that value) or `name=:placeholder` (any value, read into the placeholder). */
function readQuery(token: string, variables: PlaceholderVariables, placeholders: Placeholder[], fail: Fail): QueryCondition {
  const equals = token.indexOf('=');
  if (equals <= 0) throw fail(`"${token}" is neither a target nor a query parameter ("name=value" or "name=:placeholder").`);
  const name = token.slice(0, equals);
  const value = token.slice(equals + 1);
  const placeholder = queryPlaceholderName(value);
  if (placeholder === undefined) return { name, equals: value };
  const added = variables.add(placeholder);
  placeholders.push(added);
  return { name, variable: added.variable };
}

function readTo(target: string, placeholders: readonly Placeholder[], status: number, fail: Fail): string {
  const absolute = absoluteUrl.test(target);
  if (absolute && (status === 200 || status >= 400)) {
    throw fail(`a ${status} to another origin (${target}) would proxy it; a static host does not proxy. Redirect there (301, 302) instead.`);
  }
  // `//host` and `/\host` are read by browsers as another origin.
  if (!absolute && /^\/[/\\]/.test(target)) throw fail(`the target "${target}" would leave the site; write it as https://…`);
  const { template, text } = redirectTarget(target, placeholders);
  // What no placeholder filled stays text: a `:splat` left is a `*` missing from the path.
  if (text.some((part) => /:splat(?![A-Za-z0-9_])/.test(part))) throw fail(`the target uses ":splat", but the path has no "*" to fill it.`);
  const percent = text.map(percentFault).find(Boolean);
  if (percent) throw fail(percent);
  return template;
}

function readConditions(tokens: readonly string[], rule: FileRedirect, fail: Fail): void {
  for (const token of tokens) {
    const [key = '', value = ''] = token.split('=', 2);
    const values = value.split(',').filter((item) => item !== '');
    if (!token.includes('=') || values.length === 0) throw fail(`"${token}" is not a condition ("Country=us,ca" or "Language=en").`);
    switch (key.toLowerCase()) {
      case 'country':
        rule.countries = values.map((item) => item.toUpperCase());
        break;
      case 'language':
        rule.languages = values.map((item) => item.toLowerCase());
        break;
      default:
        throw fail(`the condition "${key}" is not supported: this service matches Country and Language only.`);
    }
  }
}
