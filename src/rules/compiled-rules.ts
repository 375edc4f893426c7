import type { HashedCredential } from '../protection/basic-auth';
import type { FileHeaderRule, FileRedirect, QueryCondition, SiteRules } from './rules-files';
import { type TemplateValues, fieldValueTemplate, pathTemplate } from './path-template';
import { mergedFields } from './header-fields';
import { isTemplated } from './template-parts';
import { type PathMatch, type PathRule, PathRules } from './path-rules';
import { type RequestPath, formatPath, parseRequestPath } from '../http/request-path';
import { type TargetTemplate, targetTemplate } from './target-template';

/** What a rule's conditions read from a request besides its path. */
export interface RuleRequest {
  protocol: string;
  /** The site's domain, which a rule's absolute `from` names; none on a preview host. */
  host?: string;
  query: URLSearchParams;
  /** `request.cf.country`, when the platform says it. */
  country?: string;
  /** The visitor's preferred language range of `Accept-Language`, lower case (`preferredLanguage`). */
  language: string | undefined;
}

export interface FileRedirectRule extends Omit<FileRedirect, 'from' | 'to'> {
  to: TargetTemplate;
  /** The `:placeholders` of its path: each takes a segment's text, never nothing (`/:lang` is not `/`). */
  placeholders: readonly string[];
}

export interface FileHeaders {
  fields: [name: string, values: ((values: TemplateValues) => string)[]][];
  detach: readonly string[];
}

/** A deployment's `_redirects` and `_headers` rules, compiled once per deployment and isolate. */
export interface CompiledSiteRules {
  redirects: PathRules<FileRedirectRule>;
  headers: PathRules<FileHeaders>;
  /** The paths a `Language` rule covers: their answers vary by `Accept-Language`, the rule fired or not. */
  byLanguage: PathRules<true>;
  /** The paths a `Country` rule covers: their answers vary by the visitor's country. */
  byCountry: PathRules<true>;
  /** The paths `Basic-Auth` protects, with who may open them. */
  basicAuth: PathRules<readonly HashedCredential[]>;
}

const noRules: CompiledSiteRules = { redirects: new PathRules([]), headers: new PathRules([]), byLanguage: new PathRules([]), byCountry: new PathRules([]), basicAuth: new PathRules([]) };

export function compileSiteRules(rules: SiteRules | undefined): CompiledSiteRules {
  if (!rules) return noRules;
  return {
    redirects: new PathRules(rules.redirects.flatMap(({ from, to, ...rule }) => redirectForms(from, { ...rule, to: targetTemplate(to, queryVariables(rule.query)), placeholders: placeholdersOf(from) }))),
    headers: new PathRules(rules.headers.flatMap(compileHeaders)),
    byLanguage: new PathRules(rules.redirects.flatMap(({ from, languages }) => (languages ? redirectForms(from, true as const) : []))),
    byCountry: new PathRules(rules.redirects.flatMap(({ from, countries }) => (countries ? redirectForms(from, true as const) : []))),
    basicAuth: new PathRules((rules.basicAuth ?? []).flatMap(({ uri, credentials }) => withAndWithoutSlash(uri, credentials as readonly HashedCredential[]))),
  };
}

/** Who may open `path` when a `Basic-Auth` rule protects it (the first that matches, as the file orders them); undefined when none does. */
export function basicAuthOf(rules: CompiledSiteRules, path: RequestPath): readonly HashedCredential[] | undefined {
  return rules.basicAuth.first(path, undefined, undefined, withoutSlash(path))?.rule;
}

/**
 * The request fields the answer on `path` varies by, for the conditions of the rules that cover
 * it, whatever the request: `Accept-Language` for `Language`; for `Country`, `CF-IPCountry`, the
 * field Cloudflare gives the visitor's country in (from the same lookup as `request.cf.country`).
 */
export function conditionFields(rules: CompiledSiteRules, path: RequestPath): string[] {
  const covers = (byCondition: PathRules<true>) => byCondition.first(path, undefined, undefined, withoutSlash(path)) !== undefined;
  return [...(covers(rules.byLanguage) ? ['Accept-Language'] : []), ...(covers(rules.byCountry) ? ['CF-IPCountry'] : [])];
}

/** A directory's path without its trailing slash, which each rule takes too (as Netlify reads paths). */
function withoutSlash(path: RequestPath): RequestPath | undefined {
  return path.directory && path.segments.length > 0 ? { ...path, directory: false } : undefined;
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

/**
 * A redirect's templates, as Netlify matches them: a placeholder rule written with a trailing
 * slash (`/:lang/guide/`) without it (requests are tried without theirs too, see
 * `firstRedirect`), and a splat rule (`/pkg/*`) also for the path it ends under (`/pkg`, what
 * `go get` asks for), its splat empty.
 */
function redirectForms<T>(from: string, rule: T): PathRule<T>[] {
  if (!isTemplated(from)) return withAndWithoutSlash(from, rule);
  const source = from.length > 1 && from.endsWith('/') ? from.slice(0, -1) : from;
  const forms: PathRule<T>[] = [{ template: pathTemplate(source), rule }];
  const bare = source.endsWith(splatEnd) ? source.slice(0, -splatEnd.length) : '';
  return bare === '' ? forms : [...forms, ...withAndWithoutSlash(bare, rule)];
}

/** How a pattern's trailing `/*` reads as a template (./rules-files.ts). */
const splatEnd = '/{+splat}';

function placeholdersOf(from: string): string[] {
  return pathTemplate(from).variables.filter((name) => name !== 'splat');
}

function queryVariables(query: readonly QueryCondition[] = []): ReadonlySet<string> {
  return new Set(query.flatMap(({ variable }) => (variable === undefined ? [] : [variable])));
}

function compileHeaders({ uri, fields, detach }: FileHeaderRule): PathRule<FileHeaders>[] {
  const { variables } = pathTemplate(uri);
  const compiled = mergedFields(Object.entries(fields)).map(([name, values]): FileHeaders['fields'][number] => [name, values.map((value) => fieldValueTemplate(value, variables))]);
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
    if (rule.placeholders.some((name) => values[name] === '')) return undefined;
    // Without the request's facts, a rule that names an origin, a query or a condition never applies.
    if (request ? !conditionsHold(rule, request) : rule.origin || rule.query || rule.countries || rule.languages) return undefined;
    const query = rule.query && request ? queryValues(rule.query, request.query) : undefined;
    if (rule.query && !query) return undefined;
    if (!rule.force && (exists ??= fileExists())) return undefined;
    return { rule, values: query ? { ...values, ...query } : values };
  };
  // As Netlify, each rule in turn takes the path with and without its trailing slash (`/blog/:slug`
  // takes `/blog/hello/`), so a catch-all further down never wins over it; plain paths are stored in both forms.
  return rules.redirects.first(path, undefined, accept, withoutSlash(path));
}

function conditionsHold(rule: FileRedirectRule, request: RuleRequest): boolean {
  if (rule.origin && (rule.origin.protocol !== request.protocol || rule.origin.host !== request.host)) return false;
  if (rule.countries && !(request.country && rule.countries.includes(request.country.toUpperCase()))) return false;
  if (rule.languages) {
    const preferred = request.language;
    // `Language=en` takes `en-GB` too: a listed tag matches a range that is it or begins with it and "-".
    if (preferred === undefined || !rule.languages.some((tag) => preferred === tag || preferred.startsWith(`${tag}-`))) return false;
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

/**
 * The visitor's preferred language range, lower case: the one of highest weight in
 * `Accept-Language` (RFC 9110 §12.5.4), the first listed among equals, `*` and q=0 left out.
 * As Netlify's own local server, a rule follows this one language only: `en-US, de;q=0.5` is
 * not sent to German.
 */
export function preferredLanguage(header: string | null): string | undefined {
  if (!header) return undefined;
  let best: { range: string; q: number } | undefined;
  for (const item of header.split(',')) {
    const [range = '', ...parameters] = item.split(';').map((part) => part.trim());
    const weight = parameters.find((parameter) => /^q=/i.test(parameter));
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    if (range === '' || range === '*' || !(q > 0)) continue;
    if (!best || q > best.q) best = { range: range.toLowerCase(), q };
  }
  return best?.range;
}
