import uriTemplate, { type TemplateValues } from 'uri-templates';
import { isTemplated } from '../configuration/path-templates';
import { type RequestPath, formattedPath } from './request-path';

export type { TemplateValues };

/** An RFC 6570 URI template matched against request paths (`headers[].uri`, `redirects[].from`). */
export interface PathTemplate {
  /** The variables that expand to this path, or undefined when the path does not match. */
  match(path: RequestPath): TemplateValues | undefined;
  expand(values: TemplateValues): string;
  /** For a template without expressions: the one formatted path (`formatPath`) it matches. */
  literal?: string;
  /** The names of its variables. */
  variables: readonly string[];
}

/**
 * `uri-templates` reads variables back from a URI, but its `fromUri` lets a simple `{name}`
 * swallow `/` (`/blog/{slug}` would match `/blog/a/b`, which no expansion of it can produce,
 * and redirect to `/posts/a%2Fb`). A match therefore counts only when expanding the template
 * with the values read gives back the same path segments; `{+path}` or `{/path*}` span several.
 * A template without expressions matches exactly the formatted path equal to it, which is
 * what lets rules look it up by key.
 */
export function pathTemplate(source: string): PathTemplate {
  const template = uriTemplate(source);
  return {
    match(path) {
      const values = template.fromUri(formattedPath(path));
      if (!values) return undefined;
      const expanded = decodedSegments(template.fill(values));
      const wanted = ['', ...path.segments, ...(path.directory ? [''] : [])];
      const same = expanded?.length === wanted.length && wanted.every((segment, i) => expanded[i] === segment);
      return same ? values : undefined;
    },
    expand: (values) => template.fill(values),
    literal: isTemplated(source) ? undefined : source,
    variables: template.varNames,
  };
}

/** An expression of RFC 6570 (`{name}`, `{+path}`, `{/rest*}`, `{a,b:3}`), as host schema templates write it. */
const expression = /\{[+#./;?&]?[A-Za-z0-9_.%]+(?::[1-9][0-9]{0,3}|\*)?(?:,[A-Za-z0-9_.%]+(?::[1-9][0-9]{0,3}|\*)?)*\}/g;

/**
 * A header field value that may use the variables of its rule's URI template
 * (`"X-Asset": "{file}"`). Only expressions naming those variables are expanded, so values
 * that merely contain braces (a JSON `Report-To`) are sent as written. Expansion
 * percent-encodes what it inserts: the value stays a valid field value.
 */
export function fieldValueTemplate(value: string, variables: readonly string[]): (values: TemplateValues) => string {
  const known = new Set(variables);
  const parts: (string | ReturnType<typeof uriTemplate>)[] = [];
  let last = 0;
  for (const found of value.matchAll(expression)) {
    const compiled = uriTemplate(found[0]);
    if (!compiled.varNames.every((name) => known.has(name))) continue;
    parts.push(value.slice(last, found.index), compiled);
    last = found.index + found[0].length;
  }
  if (last === 0) return () => value;
  parts.push(value.slice(last));
  return (values) => parts.map((part) => (typeof part === 'string' ? part : part.fill(values))).join('');
}

/** `/a/b%2Fc/` as `['', 'a', 'b/c', '']`; undefined when not valid percent-encoding. */
function decodedSegments(path: string): string[] | undefined {
  try {
    return path.split('/').map((segment) => decodeURIComponent(segment).normalize('NFC'));
  } catch {
    return undefined;
  }
}
