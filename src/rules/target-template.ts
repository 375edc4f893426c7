import type { TemplateValues } from 'uri-templates';
import { parseTemplate } from './template-parts';

/** A `_redirects` target, filled with the values its rule read. */
export interface TargetTemplate {
  expand(values: TemplateValues): string;
}

/** Where in a target a placeholder stands: its encoding keeps it there. */
type Place = 'host' | 'path' | 'query';

/**
 * A target of `_redirects` (`/posts/{+year}/{+slug}`, as ./rules-files.ts writes it), each
 * value encoded for where it lands, so that no value changes the target's shape:
 * - in the path, a value read from the path keeps its `/` (a splat spans segments), and
 *   `?`, `#`, `%` and `\` are encoded; a value read from the query (`u=:u`) encodes its `/`
 *   too, as Netlify does (`/go u=:u /:u` sends `u=/evil.example` to `/%2Fevil.example`);
 * - in the query or fragment, a value is one component: `&`, `=`, `#` and `+` are encoded;
 * - in the host of an absolute target, a value is one component.
 * `uri-templates`' reserved expansion (`{+name}`) would pass `?`, `#`, `&` and `%XX` through.
 */
export function targetTemplate(source: string, queryVariables: ReadonlySet<string>): TargetTemplate {
  const parts: (string | { name: string; place: Place })[] = [];
  let place: Place = /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? 'host' : 'path';
  let seen = '';
  for (const part of parseTemplate(source)) {
    if (typeof part === 'string') {
      parts.push(part);
      seen += part;
      if (place === 'host' && /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*[/?#]/i.test(seen)) place = 'path';
      if (/[?#]/.test(part)) place = 'query';
      continue;
    }
    for (const { name } of part.variables) parts.push({ name, place });
  }
  if (parts.every((part) => typeof part === 'string')) return { expand: () => source };
  return {
    expand: (values) =>
      parts
        .map((part) => {
          if (typeof part === 'string') return part;
          const value = values[part.name];
          const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : '';
          if (part.place !== 'path') return encodeURIComponent(text);
          return queryVariables.has(part.name) ? pathSegment(text) : text.split('/').map(pathSegment).join('/');
        })
        .join(''),
  };
}

/** Characters a path segment holds as they are (RFC 3986 `pchar`) that `encodeURIComponent` encodes. */
const keptInSegment = /%(?:24|26|2B|2C|3A|3B|3D|40)/g;

function pathSegment(text: string): string {
  return encodeURIComponent(text).replace(keptInSegment, decodeURIComponent);
}

/** Browsers read a Location that starts `//` or `/\` as another origin. */
export function leavesSite(location: string): boolean {
  return /^[\u0000-\u0020]*[/\\][/\\]/.test(location);
}
