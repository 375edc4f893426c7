import uriTemplate, { type TemplateValues } from 'uri-templates';
import { fieldValueParts, isTemplated } from './template-parts';
import { type MatchMeter } from './path-scan';
import { type RequestPath, decodedPath } from '../http/request-path';
import { TemplateMatcher } from './template-matcher';

export type { TemplateValues };

/** An RFC 6570 URI template matched against request paths (`headers[].uri`, `redirects[].from`). */
export interface PathTemplate {
  /**
   * The variables that expand to this path, or undefined when the path does not match. Costs
   * time linear in the path whatever the template (`TemplateMatcher`); `meter` counts it.
   */
  match(path: RequestPath, meter?: MatchMeter): TemplateValues | undefined;
  expand(values: TemplateValues): string;
  /** For a template without expressions: the one formatted path (`formatPath`) it matches. */
  literal?: string;
  /** The names of its variables. */
  variables: readonly string[];
}

/** Where work goes uncounted. */
const unmetered: MatchMeter = { steps: 0 };

/**
 * A template read by `TemplateMatcher` and expanded by `uri-templates`. Request paths are
 * compared segment by segment, decoded: a simple `{name}` never takes a `/` (`/blog/{slug}`
 * does not match `/blog/a/b`), `{+path}` and `{/path*}` take several segments. A template
 * without expressions matches exactly the formatted path equal to it, which is what lets
 * rules look it up by key.
 */
export function pathTemplate(source: string): PathTemplate {
  const template = uriTemplate(source);
  const matcher = new TemplateMatcher(source);
  return {
    match: (path, meter = unmetered) => matcher.match(decodedPath(path), meter),
    expand: (values) => template.fill(values),
    literal: isTemplated(source) ? undefined : source,
    variables: template.varNames,
  };
}

/**
 * A header field value that may use the variables of its rule's URI template
 * (`"X-Asset": "{file}"`); `fieldValueParts` says which expressions are expanded. Expansion
 * percent-encodes what it inserts: the value stays a valid field value.
 */
export function fieldValueTemplate(value: string, variables: readonly string[]): (values: TemplateValues) => string {
  const parts = fieldValueParts(value, new Set(variables)).map((part) => (typeof part === 'string' ? part : uriTemplate(part.source)));
  if (parts.every((part) => typeof part === 'string')) return () => value;
  return (values) => parts.map((part) => (typeof part === 'string' ? part : part.fill(values))).join('');
}
