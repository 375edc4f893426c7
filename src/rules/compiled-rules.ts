import type { FileHeaderRule, FileRedirect, QueryCondition, SiteRules } from './rules-files';
import { type PathTemplate, type TemplateValues, fieldValueTemplate, pathTemplate } from './path-template';
import { type PathMatch, type PathRule, PathRules } from './path-rules';
import { type RequestPath, formatPath, parseRequestPath } from '../http/request-path';

/** What a rule's conditions read from a request besides its path. */
export interface RuleRequest {
  protocol: string;
  /** The site's domain, which a rule's absolute `from` names; none on a preview host. */
  host?: string;
  query: URLSearchParams;
  /** `request.cf.country`, when the platform says it. */
  country?: string;
  /** The language ranges of `Accept-Language` the visitor takes (q > 0), lower case. */
  languages: readonly string[];
}

export interface FileRedirectRule extends Omit<FileRedirect, 'from' | 'to'> {
  to: PathTemplate;
}

export interface FileHeaders {
  fields: [name: string, values: ((values: TemplateValues) => string)[]][];
  detach: readonly string[];
}

/** A deployment's `_redirects` and `_headers` rules, compiled once per deployment and isolate. */
export interface CompiledSiteRules {
  redirects: PathRules<FileRedirectRule>;
  headers: PathRules<FileHeaders>;
}

const noRules: CompiledSiteRules = { redirects: new PathRules([]), headers: new PathRules([]) };

export function compileSiteRules(rules: SiteRules | undefined): CompiledSiteRules {
  if (!rules) return noRules;
  return {
    redirects: new PathRules(rules.redirects.flatMap(({ from, to, ...rule }) => withAndWithoutSlash(from, { ...rule, to: pathTemplate(to) }))),
    headers: new PathRules(rules.headers.flatMap(compileHeaders)),
  };
}

/**
 * The rule for its path, and for a plain path its other form with or without the trailing
 * slash, as Netlify matches `/about` for `/about/`. A plain path is looked up by its formatted
 * form (percent-encoded as `formatPath` writes it), so `/café` finds `/caf%C3%A9`.
 */
function withAndWithoutSlash<T>(from: string, rule: T): PathRule<T>[] {
  const template = pathTemplate(from);
  if (template.literal === undefined) return [{ template, rule }];
  let path: RequestPath;
  try {
    path = parseRequestPath(from);
  } catch {
    return [];
  }
  const forms = path.segments.length === 0 ? [true] : [false, true];
  return forms.map((directory) => ({ template: { ...template, literal: formatPath(path.segments, directory) }, rule }));
}

function compileHeaders({ uri, fields, detach }: FileHeaderRule): PathRule<FileHeaders>[] {
  const { variables } = pathTemplate(uri);
  const compiled = Object.entries(fields).map(([name, values]): FileHeaders['fields'][number] => [name, values.map((value) => fieldValueTemplate(value, variables))]);
  return withAndWithoutSlash(uri, { fields: compiled, detach });
}

/**
 * The first redirect rule, in the file's order, that applies to the request: its path, its
 * origin and query parameters, its conditions, and unless forced (`!`) no file at the path
 * (`fileExists`, asked at most once). Query values join the path's variables.
 */
export function firstRedirect(rules: CompiledSiteRules, path: RequestPath, request: RuleRequest | undefined, fileExists: () => boolean): PathMatch<FileRedirectRule> | undefined {
  let exists: boolean | undefined;
  const accept = ({ rule, values }: PathMatch<FileRedirectRule>): PathMatch<FileRedirectRule> | undefined => {
    // Without the request's facts, a rule that names an origin, a query or a condition never applies.
    if (request ? !conditionsHold(rule, request) : rule.origin || rule.query || rule.countries || rule.languages) return undefined;
    const query = rule.query && request ? queryValues(rule.query, request.query) : undefined;
    if (rule.query && !query) return undefined;
    if (!rule.force && (exists ??= fileExists())) return undefined;
    return { rule, values: query ? { ...values, ...query } : values };
  };
  const match = rules.redirects.first(path, undefined, accept);
  // As Netlify, `/blog/:slug` takes `/blog/hello/` too (plain paths are stored in both forms).
  if (match || !path.directory || path.segments.length === 0) return match;
  return rules.redirects.first({ ...path, directory: false }, undefined, accept);
}

function conditionsHold(rule: FileRedirectRule, request: RuleRequest): boolean {
  if (rule.origin && (rule.origin.protocol !== request.protocol || rule.origin.host !== request.host)) return false;
  if (rule.countries && !(request.country && rule.countries.includes(request.country.toUpperCase()))) return false;
  if (rule.languages) {
    const wanted = rule.languages;
    // `Language=en` takes `en-GB` too: a listed tag matches a range that is it or begins with it and "-".
    if (!request.languages.some((range) => wanted.some((tag) => range === tag || range.startsWith(`${tag}-`)))) return false;
  }
  return true;
}

function queryValues(conditions: readonly QueryCondition[], query: URLSearchParams): TemplateValues | undefined {
  const values: TemplateValues = {};
  for (const { name, variable, equals } of conditions) {
    const value = query.get(name);
    if (value === null || (equals !== undefined && value !== equals)) return undefined;
    if (variable !== undefined) values[variable] = value;
  }
  return values;
}

/** The language ranges a visitor takes, from `Accept-Language` (RFC 9110 §12.5.4), q=0 left out. */
export function acceptedLanguages(header: string | null): string[] {
  if (!header) return [];
  return header.split(',').flatMap((item) => {
    const [range = '', ...parameters] = item.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => /^q=/i.test(parameter));
    return range === '' || (q !== undefined && Number(q.slice(2)) === 0) ? [] : [range.toLowerCase()];
  });
}
