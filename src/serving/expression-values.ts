import type { Operator, TemplateExpression, TemplateVariable } from '../configuration/path-templates';
import type { MatchMeter } from './path-scan';

/** A variable's value as expansion takes it: a string, a list (`{name*}`), or none. */
export type Value = string | string[] | undefined;

/** How an operator expands (RFC 6570 appendix A, as `uri-templates` fills templates). */
interface OperatorRule {
  /** Written before the first defined variable. */
  first: string;
  /** Between variables, and between the items of an exploded list. */
  separator: string;
  /** `name=value` items. */
  named: boolean;
  /** Values are not percent-encoded: they may hold `/` and span segments. */
  reserved: boolean;
}

const rules: Record<Operator, OperatorRule> = {
  '': { first: '', separator: ',', named: false, reserved: false },
  '+': { first: '', separator: ',', named: false, reserved: true },
  '#': { first: '#', separator: ',', named: false, reserved: true },
  '.': { first: '.', separator: '.', named: false, reserved: false },
  '/': { first: '/', separator: '/', named: false, reserved: false },
  ';': { first: ';', separator: ';', named: true, reserved: false },
  '?': { first: '?', separator: '&', named: true, reserved: false },
  '&': { first: '&', separator: '&', named: true, reserved: false },
};

/**
 * `uri-templates` passes `%25` followed by two digits through a reserved expansion as `%`: a
 * value holding `%` and two digits does not expand to itself, so no path reads it.
 */
const unexpandable = /%[0-9]{2}/;

/** An expression compiled for reading its variables back from the decoded text it expanded to. */
export class ExpressionReader {
  readonly expression: TemplateExpression;
  /** The character it starts with when any of its variables is defined; '' for none. */
  readonly first: string;
  /** Its values may hold `/`: it can take several segments. */
  readonly spansSegments: boolean;
  readonly #rule: OperatorRule;
  /** The variables' names as they appear in a decoded path (`name=`); undefined when a name cannot be decoded. */
  readonly #decodedNames: (string | undefined)[];

  constructor(expression: TemplateExpression) {
    this.expression = expression;
    this.#rule = rules[expression.operator];
    this.first = this.#rule.first;
    const { variables, operator } = expression;
    this.spansSegments = this.#rule.reserved || (operator === '/' && (variables.length > 1 || variables.some(({ explode }) => explode)));
    this.#decodedNames = variables.map(({ name }) => decodedName(name));
  }

  /**
   * The values that expand to `body`, the decoded text after the expression's first character;
   * undefined when none do. `body` may hold `/` only if the expression spans segments: unless
   * `withinSegment` says the caller took it from one segment, that is checked.
   */
  read(body: string, withinSegment: boolean, meter: MatchMeter): Value[] | undefined {
    const { variables } = this.expression;
    const rule = this.#rule;
    if (!withinSegment && !(rule.reserved || (rule.separator === '/' && this.spansSegments))) {
      meter.steps += body.length;
      if (body.includes('/')) return undefined;
    }
    // Splitting reads the body once; a named item is compared with its name once more.
    const split = rule.named || this.expression.variables.length > 1 || variables[0]!.explode;
    meter.steps += split ? body.length * (rule.named ? 2 : 1) : 0;
    const values = rule.named ? this.#readNamed(body) : this.#readListed(body);
    if (!values) return undefined;
    if (rule.reserved) meter.steps += body.length;
    for (let index = 0; index < values.length; index += 1) {
      const value = values[index];
      const { maxLength } = variables[index]!;
      if (typeof value === 'string' && maxLength !== undefined && value.length > maxLength) return undefined;
      if (rule.reserved && value !== undefined && (typeof value === 'string' ? unexpandable.test(value) : value.some((item) => unexpandable.test(item)))) return undefined;
    }
    return values;
  }

  /**
   * `a,b,c`: one item for each variable in turn, except that the first exploded variable, or
   * else the last variable, takes the items the others leave.
   */
  #readListed(body: string): Value[] | undefined {
    const { variables } = this.expression;
    const { separator } = this.#rule;
    if (variables.length === 1) return [variables[0]!.explode ? body.split(separator) : listed(body)];
    const items = body.split(separator);
    const exploded = variables.findIndex(({ explode }) => explode);
    const taker = exploded >= 0 ? exploded : variables.length - 1;
    const extra = Math.max(0, items.length - variables.length);
    const values: Value[] = variables.map((variable, index) => {
      const start = index <= taker ? index : index + extra;
      if (start >= items.length) return undefined;
      const taken = index === taker ? items.slice(start, start + extra + 1) : [items[start]!];
      return variable.explode ? taken : listed(taken.join(separator));
    });
    // A simple value with `/` in it would expand to `%2F`, never to two segments.
    return separator === '/' && values.some((value, index) => !variables[index]!.explode && [value ?? []].flat().some((item) => item.includes('/'))) ? undefined : values;
  }

  /** `;a=1;b;c=x;c=y`: items by name, in the template's order, each variable's at most once (a list's in a row). */
  #readNamed(body: string): Value[] | undefined {
    const items = body.split(this.#rule.separator);
    const trimsEmpty = this.expression.operator === ';';
    let next = 0;
    const values = this.expression.variables.map((variable: TemplateVariable, index): Value => {
      const name = this.#decodedNames[index];
      if (name === undefined) return undefined;
      const valueOf = (item: string | undefined) => (item !== undefined && item.startsWith(`${name}=`) ? item.slice(name.length + 1) : undefined);
      if (variable.explode) {
        const list: string[] = [];
        for (let value = valueOf(items[next]); value !== undefined; value = valueOf(items[next])) {
          list.push(value);
          next += 1;
        }
        return list.length > 0 ? list : undefined;
      }
      if (trimsEmpty && items[next] === name) {
        next += 1;
        return '';
      }
      const value = valueOf(items[next]);
      if (value === undefined || (trimsEmpty && value === '')) return undefined;
      next += 1;
      return listed(value);
    });
    return next === items.length ? values : undefined;
  }
}

/**
 * A value with commas as `uri-templates` reads it, and as expansions have always written it
 * back: the list of its items (joined by raw commas again, never `%2C`).
 */
function listed(value: string): string | string[] {
  return value.includes(',') ? value.split(',') : value;
}

function decodedName(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

/**
 * What one occurrence of a variable read. `{name:3}` keeps three characters of a longer value:
 * a reading that long is only the value's start (`exact` false).
 */
export interface Reading {
  value: Value;
  exact: boolean;
}

export function readingOf(value: Value, maxLength: number | undefined): Reading {
  return { value, exact: typeof value !== 'string' || maxLength === undefined || value.length < maxLength };
}

/**
 * Two readings of one variable as one, or undefined when no value gives both: equal values,
 * or a value and a start of it. Comparing reads each character once.
 */
export function agreeing(a: Reading, b: Reading, meter: MatchMeter): Reading | undefined {
  if (typeof a.value === 'string' && typeof b.value === 'string' && !(a.exact && b.exact)) {
    const [longer, shorter] = a.value.length >= b.value.length ? [a.value, b.value] : [b.value, a.value];
    const [longerReading, shorterReading] = longer === a.value ? [a, b] : [b, a];
    meter.steps += shorter.length;
    // Only a reading cut by its prefix modifier can be shorter than the value.
    if (!longer.startsWith(shorter) || (shorter.length < longer.length && shorterReading.exact)) return undefined;
    return { value: longer, exact: longerReading.exact || shorterReading.exact };
  }
  // An exploded occurrence reads a list where a simple one reads a string: `x` expands as `[x]` does.
  const [one, other] = Array.isArray(a.value) ? [a.value, b.value] : [b.value, a.value];
  if (Array.isArray(one) && typeof other === 'string' && one.length === 1) return sameValue(one[0], other, meter) ? { value: other, exact: true } : undefined;
  return sameValue(a.value, b.value, meter) ? a : undefined;
}

function sameValue(a: Value, b: Value, meter: MatchMeter): boolean {
  if (typeof a === 'string' || a === undefined || typeof b === 'string' || b === undefined) {
    meter.steps += typeof b === 'string' ? b.length : 0;
    return a === b;
  }
  if (a.length !== b.length) return false;
  return a.every((item, index) => {
    meter.steps += item.length + 1;
    return item === b[index];
  });
}
