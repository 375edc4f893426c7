import { percentFault, variableOf } from './rules-files';

/**
 * The placeholders of a `_redirects` line as Netlify's matcher (netlify-redirector) reads them,
 * found by running it (test/rules/netlify-matching.unit.test.ts holds this module to it):
 * - In the path, a segment that starts with `:` is one placeholder, named by the rest of the
 *   segment whatever it holds: `/:lang:/` is `lang:`, `/:a-:b` is `a-:b`, `/:1x` is `1x`. A `:`
 *   anywhere else is text: `/x:na:me` and `/file.:ext` match those very paths; so does `/:` alone.
 * - In the query, a value that starts with `:` (`id=:id`, `id=:a:b`, even `id=:`).
 * - In the target, each placeholder in turn fills every `:name` written, wherever it stands,
 *   even as the start of a longer word (`/:a /:ab` sends `/1` to `/1b`): the path's in their
 *   order, then `*`'s `:splat`, then the query's. A name filled first leaves nothing for a later
 *   one written the same (`/:a/:a /t/:a` fills the first segment's value).
 */
export interface Placeholder {
  /** As written, without its `:`. */
  name: string;
  /** The RFC 6570 variable it is stored as, distinct within its rule (`variableOf`, `.2` for a repeat). */
  variable: string;
}

/**
 * Gives each placeholder of a rule its own variable: `variableOf` its name, `%00` for the empty
 * one (`id=:`, a character no line holds), and `.2`, `.3` for a name written again (no
 * `variableOf` holds a `.`).
 */
export class PlaceholderVariables {
  readonly #used: Set<string>;

  /** `splat` is kept for the path's `*`. */
  constructor(splat: boolean) {
    this.#used = new Set(splat ? ['splat'] : []);
  }

  add(name: string): Placeholder {
    const base = name === '' ? '%00' : variableOf(name);
    let variable = base;
    for (let repeat = 2; this.#used.has(variable); repeat += 1) variable = `${base}.${repeat}`;
    this.#used.add(variable);
    return { name, variable };
  }
}

/** A path segment Netlify reads as a placeholder. */
function isPlaceholder(segment: string): boolean {
  return segment.length > 1 && segment.startsWith(':');
}

export interface RedirectPattern {
  /** The RFC 6570 template of the paths it matches: `{variable}` a segment, `{+splat}` the `*`. */
  template: string;
  /** Its placeholders in the order they fill a target, `*` last as `splat`. */
  placeholders: Placeholder[];
  /** Gives the query's placeholders variables of their own. */
  variables: PlaceholderVariables;
}

/**
 * A `_redirects` path as a template, or why it cannot be read: at most one `*` outside the
 * placeholders (anything, `/` included), its text well percent-encoded, braces literal.
 */
export function redirectPattern(path: string): RedirectPattern | string {
  const segments = path.split('/');
  const texts = segments.filter((segment) => !isPlaceholder(segment));
  if (texts.join('/').split('*').length > 2) return 'only one "*" is allowed in a path; name the others (":name").';
  const percent = texts.map(percentFault).find(Boolean);
  if (percent) return percent;
  const splat = texts.some((segment) => segment.includes('*'));
  const variables = new PlaceholderVariables(splat);
  const placeholders: Placeholder[] = [];
  const template = segments
    .map((segment) => {
      if (!isPlaceholder(segment)) return segment.replace(/[{}]/g, encodeURIComponent).replace('*', '{+splat}');
      const placeholder = variables.add(segment.slice(1));
      placeholders.push(placeholder);
      return `{${placeholder.variable}}`;
    })
    .join('/');
  if (splat) placeholders.push({ name: 'splat', variable: 'splat' });
  return { template, placeholders, variables };
}

/** A query value that reads the parameter into a placeholder (`:id`), as opposed to one it must equal. */
export function queryPlaceholderName(value: string): string | undefined {
  return value.startsWith(':') ? value.slice(1) : undefined;
}

/**
 * A target with every `:name` the placeholders fill, in their order, as `{+variable}` (its
 * text's braces percent-encoded), and that text as written, in the pieces left between them.
 * What a placeholder filled is never read again for a later one, where Netlify's matcher would
 * read the request's text as a name.
 */
export function redirectTarget(target: string, placeholders: readonly Placeholder[]): { template: string; text: string[] } {
  let parts: (string | Placeholder)[] = [target];
  for (const placeholder of placeholders) {
    const written = `:${placeholder.name}`;
    parts = parts.flatMap((part) => (typeof part === 'string' ? part.split(written).flatMap((text, at) => (at === 0 ? [text] : [placeholder, text])) : [part]));
  }
  const text = parts.filter((part): part is string => typeof part === 'string');
  return {
    template: parts.map((part) => (typeof part === 'string' ? part.replace(/[{}]/g, encodeURIComponent) : `{+${part.variable}}`)).join(''),
    text,
  };
}
