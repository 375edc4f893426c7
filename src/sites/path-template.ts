import uriTemplate, { type TemplateValues } from 'uri-templates';
import { type RequestPath, formatPath } from './request-path';

export type { TemplateValues };

/** An RFC 6570 URI template matched against request paths (`headers[].uri`, `redirects[].from`). */
export interface PathTemplate {
  /** The variables that expand to this path, or undefined when the path does not match. */
  match(path: RequestPath): TemplateValues | undefined;
  expand(values: TemplateValues): string;
}

/**
 * `uri-templates` reads variables back from a URI, but its `fromUri` lets a simple `{name}`
 * swallow `/` (`/blog/{slug}` would match `/blog/a/b`, which no expansion of it can produce,
 * and redirect to `/posts/a%2Fb`). A match therefore counts only when expanding the template
 * with the values read gives back the same path segments; `{+path}` or `{/path*}` span several.
 */
export function pathTemplate(source: string): PathTemplate {
  const template = uriTemplate(source);
  return {
    match(path) {
      const values = template.fromUri(formatPath(path.segments, path.directory));
      if (!values) return undefined;
      const expanded = decodedSegments(template.fill(values));
      const wanted = ['', ...path.segments, ...(path.directory ? [''] : [])];
      const same = expanded?.length === wanted.length && wanted.every((segment, i) => expanded[i] === segment);
      return same ? values : undefined;
    },
    expand: (values) => template.fill(values),
  };
}

/** `/a/b%2Fc/` as `['', 'a', 'b/c', '']`; undefined when not valid percent-encoding. */
function decodedSegments(path: string): string[] | undefined {
  try {
    return path.split('/').map((segment) => decodeURIComponent(segment).normalize('NFC'));
  } catch {
    return undefined;
  }
}
