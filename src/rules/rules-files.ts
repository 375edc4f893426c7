import { Problem } from '../http/problem';
import type { BasicCredential, HashedCredential } from '../protection/basic-auth';

/**
 * The rules of a deployment's `_redirects` and `_headers` (Netlify's and Cloudflare Pages'
 * files), read once at deploy time and stored with its file index, so serving never reads the
 * files again. Paths are RFC 6570 templates, as the JSON host options write them: `:name`
 * becomes `{name}`, `*` becomes `{+splat}`, so the same linear matcher serves both.
 */
export interface SiteRules {
  redirects: FileRedirect[];
  headers: FileHeaderRule[];
  /** `_headers`' `Basic-Auth` lines: the paths HTTP Basic protects, with hashed credentials only. */
  basicAuth?: BasicAuthRule[];
  /** The folder (the `root` host option) whose files they were read from; none for the top. */
  root?: string;
}

export interface FileRedirect {
  /** Template of the request paths it applies to. */
  from: string;
  /** An absolute `from` (`https://www.example.com/*`): the rule applies only to requests for this scheme and host. */
  origin?: { protocol: 'http:' | 'https:'; host: string };
  /** Query parameters the request must carry (`id=:id` reads one into `id`, `a=b` asks for that value). */
  query?: QueryCondition[];
  /** Template of the target: a path of the site, or for redirects an absolute URL. */
  to: string;
  status: number;
  /** `!`: applies even when a file exists at the path; otherwise the file shadows it (Netlify's shadowing). */
  force: boolean;
  /** `Country=`: ISO 3166 codes, upper case, from `request.cf.country`. */
  countries?: string[];
  /** `Language=`: language tags, lower case, from `Accept-Language`. */
  languages?: string[];
}

export interface QueryCondition {
  name: string;
  /** The variable that takes its value. */
  variable?: string;
  /** The value it must have. */
  equals?: string;
}

export interface FileHeaderRule {
  /** Template of the request paths it applies to. */
  uri: string;
  /** Values by field name, in order; a value may expand the template's variables. */
  fields: Record<string, string[]>;
  /** `! Name`: fields removed from what the service and earlier rules set. */
  detach: string[];
  /** Its `Basic-Auth` pairs as written, only between reading the file and hashing them (./deployment-rules.ts): never stored. */
  basicAuth?: BasicCredential[];
}

/** A path rule of HTTP Basic protection: who may open the paths it matches. */
export interface BasicAuthRule {
  uri: string;
  credentials: HashedCredential[];
}

/** Bounds on the files, as Cloudflare Pages sets them (and the service's own for a file's size). */
export const rulesFileLimits = {
  MAX_STATIC_REDIRECTS: 2_000,
  MAX_DYNAMIC_REDIRECTS: 100,
  MAX_HEADERS_FILE_RULES: 100,
  /** `Basic-Auth` pairs in a `_headers` file: each is hashed at deploy time, at a cost (src/protection/password-hash.ts). */
  MAX_BASIC_AUTH_CREDENTIALS: 20,
  MAX_RULES_LINE_LENGTH: 1_000,
  /** 2,100 rules of 1,000 characters, and room for comments. */
  MAX_RULES_FILE_BYTES: 4 * 1024 * 1024,
} as const;

export type RulesFileLimit = keyof typeof rulesFileLimits;

export type RulesFileName = '_redirects' | '_headers';

/** 400 naming the file, the line and why; a limit's name and value when one is passed. */
export function rulesFileProblem(file: RulesFileName, line: number, why: string, limit?: RulesFileLimit): Problem {
  return new Problem('invalid-rules-file', `${file} line ${line}: ${why}`, {
    extensions: { file, line, ...(limit ? { limit, value: rulesFileLimits[limit] } : {}) },
  });
}

/** One line of a file to read: its text trimmed (comments and blank lines dropped) and its number. */
export interface RulesLine {
  text: string;
  number: number;
}

/** What one line of a file got wrong, as a problem's `errors` lists it. */
export interface RulesLineFault {
  file: RulesFileName;
  line: number;
  message: string;
}

/**
 * Reads the lines that hold rules with `read`, each within the line limit (a leading byte
 * order mark dropped). A line that cannot be read is noted and the next one read, so that one
 * answer names every bad line; a limit passed ends the reading at once.
 */
export function readRuleLines(file: RulesFileName, text: string, read: (line: RulesLine) => void): void {
  const faults: Problem[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      if (line.length > rulesFileLimits.MAX_RULES_LINE_LENGTH) {
        throw rulesFileProblem(file, index + 1, `the line is ${line.length} characters long; at most ${rulesFileLimits.MAX_RULES_LINE_LENGTH} are allowed.`, 'MAX_RULES_LINE_LENGTH');
      }
      try {
        // eslint-disable-next-line no-control-regex
        if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line)) throw rulesFileProblem(file, index + 1, 'the line holds a control character.');
        read({ text: line, number: index + 1 });
      } catch (error) {
        if (!isLineFault(error)) throw error;
        faults.push(error);
      }
    });
  if (faults.length > 0) throw rulesFilesProblem(faults);
}

/** A problem with one line, not a limit passed. */
function isLineFault(error: unknown): error is Problem {
  return error instanceof Problem && error.kind === 'invalid-rules-file' && error.options.extensions?.limit === undefined;
}

/** The faults of a problem of the rules files: those it lists, or itself. */
function faultsOf(problem: Problem): RulesLineFault[] {
  const listed = problem.options.errors as RulesLineFault[] | undefined;
  if (listed) return listed;
  const { file, line } = problem.options.extensions as { file: RulesFileName; line: number };
  return [{ file, line, message: problem.detail.replace(/^\S+ line \d+: /, '') }];
}

/**
 * One 400 for the lines of both files that cannot be read: the first says what is wrong (its
 * `file` and `line` as members, as one fault's problem has them), `errors` lists every one.
 */
export function rulesFilesProblem(problems: readonly Problem[]): Problem {
  const [first, ...rest] = problems;
  if (!first) throw new Error('No rules file problem to report');
  if (first.options.extensions?.limit !== undefined && rest.length === 0) return first;
  const errors = problems.flatMap(faultsOf);
  const more = errors.length - 1;
  const detail = more > 0 ? `${first.detail.replace(/ \(and \d+ more lines?\)$/, '')} (and ${more} more line${more === 1 ? '' : 's'})` : first.detail;
  return new Problem('invalid-rules-file', detail, { extensions: first.options.extensions, errors });
}

/** A `%` that does not start two hexadecimal digits, or an escape that does not decode as UTF-8. */
export function percentFault(text: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return `"${text}" holds a "%" that does not start a percent-encoded byte (%XX); write "%" as "%25".`;
  try {
    decodeURIComponent(text);
    return undefined;
  } catch {
    return `"${text}" holds percent-encoded bytes that are not UTF-8.`;
  }
}

/** A placeholder as both hosts write it: `:name` (letters, digits, `_`, starting with a letter). */
export const placeholder = /:([A-Za-z][A-Za-z0-9_]*)/g;

/**
 * A segment that starts with a placeholder and holds another `:` (`/:lang:/`, as Astro's
 * documentation wrote it): Netlify's matcher reads the whole segment as one placeholder, named
 * by the rest of it (`lang:`), and fills it where `:lang:` is written.
 */
const wholeSegmentPlaceholder = /^:[A-Za-z][^:]*:/;

/** A placeholder's name as an RFC 6570 variable: letters, digits and `_`, every other character percent-encoded (so never a `.`). */
export function variableOf(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/gu, (character) => Array.from(new TextEncoder().encode(character), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/**
 * A `_headers` path pattern as an RFC 6570 template (`_redirects` reads its paths as Netlify's
 * matcher does, ./netlify-placeholders.ts): `:name` is `{name}` (one segment's text),
 * a segment such as `:lang:` one placeholder as Netlify reads it (`wholeSegmentPlaceholder`),
 * `*` is `{+splat}` (anything, `/` included), and braces are literal text. `names` gets the
 * placeholders' names in order. At most one `*`, and no `:splat` beside it: both would name `splat`.
 */
export function patternTemplate(pattern: string, names: string[]): string | string[] {
  const stars = pattern.split('*').length - 1;
  if (stars > 1) return 'only one "*" is allowed in a path; name the others (":name").';
  const segments = pattern.split('/');
  // Netlify reads `/x:na:me` as literal text, and this service `:na` as a placeholder: neither is what was meant.
  const stray = segments.map((segment) => (wholeSegmentPlaceholder.test(segment) ? null : /:[A-Za-z][A-Za-z0-9_]*:/.exec(segment))).find(Boolean);
  if (stray) return `"${stray[0]}" is not a placeholder: within a segment, a name is letters, digits and "_", and ends before any ":".`;
  const percent = percentFault(pattern);
  if (percent) return percent;
  const named = (name: string) => {
    names.push(name);
    return name;
  };
  const template = segments
    .map((segment) =>
      wholeSegmentPlaceholder.test(segment)
        ? `{${variableOf(named(segment.slice(1)))}}`
        : segment.replace(/[{}]/g, encodeURIComponent).replace(placeholder, (_, name: string) => `{${named(name)}}`),
    )
    .join('/')
    .replace('*', () => {
      names.push('splat');
      return '{+splat}';
    });
  if (new Set(names).size !== names.length) return `a placeholder is named twice (${names.join(', ')}); "*" is ":splat".`;
  return [template];
}

/**
 * A `_headers` value (where `fieldValueParts` leaves braces that name no variable as they are)
 * with the path's placeholders (and `:splat`) as expressions that keep their `/`. A placeholder
 * named as Netlify names a whole segment (`lang:`) is filled where its whole name is written (`:lang:`).
 */
export function headerValueTemplate(value: string, names: ReadonlySet<string>): string {
  const segmentNames = [...names].filter((name) => !/^[A-Za-z][A-Za-z0-9_]*$/.test(name)).sort((a, b) => b.length - a.length);
  const filled = segmentNames.reduce((text, name) => text.replaceAll(`:${name}`, `{+${variableOf(name)}}`), value);
  return filled.replace(placeholder, (text, name: string) => (names.has(name) ? `{+${name}}` : text));
}
