import type { MatchMeter } from './path-scan';
import type { PathTemplate, TemplateValues } from './path-template';
import { type RequestPath, formattedPath } from '../http/request-path';

/** A rule, and the template of the request paths it applies to (none: every path). */
export interface PathRule<T> {
  template?: Pick<PathTemplate, 'match' | 'literal'>;
  rule: T;
}

export interface PathMatch<T> {
  rule: T;
  /** The template's variables read from the path; empty for a rule without variables. */
  values: TemplateValues;
}

interface Positioned<T> extends PathRule<T> {
  /** Its place in the configured order. */
  position: number;
}

const noValues: TemplateValues = Object.freeze({});

/**
 * Rules matched against request paths in their configured order. A rule whose template has
 * no expression matches one path only, so those are found by exact key in one step; only
 * the templated rules are tried one by one. So the cost of serving a request grows with the
 * templated rules alone, however many plain paths a site redirects or sets headers for.
 */
export class PathRules<T> {
  readonly #byPath = new Map<string, Positioned<T>[]>();
  /** Templated rules and rules for every path, in order. */
  readonly #tried: Positioned<T>[] = [];

  constructor(rules: readonly PathRule<T>[]) {
    rules.forEach((rule, position) => {
      const literal = rule.template?.literal;
      if (literal === undefined) {
        this.#tried.push({ ...rule, position });
        return;
      }
      let same = this.#byPath.get(literal);
      if (!same) this.#byPath.set(literal, (same = []));
      same.push({ ...rule, position });
    });
  }

  /**
   * The first rule, in the configured order, that applies to the path and that `accept` takes
   * (it may add values, or refuse the rule: the next one is tried); `meter` counts the templates' work.
   * A templated rule the path misses is tried on `alternate` too (plain paths are stored in every form they answer).
   */
  first(path: RequestPath, meter?: MatchMeter, accept: (match: PathMatch<T>) => PathMatch<T> | undefined = (match) => match, alternate?: RequestPath): PathMatch<T> | undefined {
    const exact = this.#byPath.get(formattedPath(path)) ?? [];
    let next = 0;
    /** The first plain-path rule placed before `position` that `accept` takes. */
    const exactBefore = (position: number): PathMatch<T> | undefined => {
      for (; next < exact.length && exact[next]!.position < position; next++) {
        const taken = accept({ rule: exact[next]!.rule, values: noValues });
        if (taken) return taken;
      }
      return undefined;
    };
    for (const candidate of this.#tried) {
      const earlier = exactBefore(candidate.position);
      if (earlier) return earlier;
      const values = valuesFor(candidate, path, meter) ?? (alternate && valuesFor(candidate, alternate, meter));
      const taken = values && accept({ rule: candidate.rule, values });
      if (taken) return taken;
    }
    return exactBefore(Infinity);
  }

  /** Every rule that applies to the path, in the configured order; `meter` counts the templates' work. */
  all(path: RequestPath, meter?: MatchMeter): PathMatch<T>[] {
    const exact = this.#byPath.get(formattedPath(path)) ?? [];
    const matches: (PathMatch<T> & { position: number })[] = exact.map(({ rule, position }) => ({ rule, values: noValues, position }));
    for (const candidate of this.#tried) {
      const values = valuesFor(candidate, path, meter);
      if (values) matches.push({ rule: candidate.rule, values, position: candidate.position });
    }
    if (exact.length > 0) matches.sort((a, b) => a.position - b.position);
    return matches.map(({ rule, values }) => ({ rule, values }));
  }
}

function valuesFor<T>({ template }: PathRule<T>, path: RequestPath, meter: MatchMeter | undefined): TemplateValues | undefined {
  return template ? template.match(path, meter) : noValues;
}
