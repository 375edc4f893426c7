import type { Operator, TemplateExpression } from './template-parts';
import { ListText, listed } from './list-text';
import type { MatchMeter } from './path-scan';

/** A variable's value as read: a string, a list (`{name*}`, or a simple value with commas), or none. */
export type Value = string | ListText | undefined;

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
    // Finding the items, or a simple value's commas, reads the body once (a named item's name once
    // more); an exploded list is only split when an expansion reads it.
    meter.steps += rule.named ? 2 * body.length : variables.length > 1 || !variables[0]!.explode ? body.length : 0;
    const values = rule.named ? this.#readNamed(body) : this.#readListed(body);
    if (!values) return undefined;
    if (rule.reserved) {
      meter.steps += body.length;
      if (unexpandable.test(body)) return undefined;
    }
    const fits = values.every((value, index) => {
      const { maxLength } = variables[index]!;
      return typeof value !== 'string' || maxLength === undefined || value.length <= maxLength;
    });
    return fits ? values : undefined;
  }

  /**
   * `a,b,c`: one item for each variable in turn, except that the first exploded variable, or
   * else the last variable, takes the items the others leave.
   */
  #readListed(body: string): Value[] | undefined {
    const { variables } = this.expression;
    const { separator } = this.#rule;
    const valueOf = (text: string, explode: boolean): Value => (explode ? new ListText(text, separator) : listed(text));
    if (variables.length === 1) return [valueOf(body, variables[0]!.explode)];
    const exploded = variables.findIndex(({ explode }) => explode);
    const taker = exploded >= 0 ? exploded : variables.length - 1;
    // Where the items of the variables before the taker start, found from the left...
    const starts = [0];
    while (starts.length <= taker) {
      const next = body.indexOf(separator, starts.at(-1)!);
      if (next < 0) break;
      starts.push(next + 1);
    }
    // ...and, once every one of those has its item, where the items after it end, from the right.
    const ends = [body.length];
    while (starts.length > taker && ends.length < variables.length - taker) {
      const previous = body.lastIndexOf(separator, ends[0]! - 1);
      if (previous < starts.at(-1)!) break;
      ends.unshift(previous);
    }
    const values: Value[] = variables.map((variable, index) => {
      if (index < starts.length - 1) return valueOf(body.slice(starts[index]!, starts[index + 1]! - 1), variable.explode);
      if (index === starts.length - 1) return valueOf(body.slice(starts[index]!, ends[0]), variable.explode);
      const after = index - taker;
      return index > taker && after < ends.length ? valueOf(body.slice(ends[after - 1]! + 1, ends[after]), variable.explode) : undefined;
    });
    // A simple value with `/` in it would expand to `%2F`, never to two segments.
    const slashed = (value: Value, index: number) => !variables[index]!.explode && (typeof value === 'string' ? value : (value?.text ?? '')).includes('/');
    return separator === '/' && values.some(slashed) ? undefined : values;
  }

  /** `;a=1;b;c=x;c=y`: items by name, in the template's order, each variable's at most once (a list's in a row). */
  #readNamed(body: string): Value[] | undefined {
    const { separator } = this.#rule;
    const trimsEmpty = this.expression.operator === ';';
    /** Where the next item starts; past the body when every item is read. */
    let at = 0;
    const itemEnd = () => {
      const end = body.indexOf(separator, at);
      return end < 0 ? body.length : end;
    };
    const values = this.expression.variables.map((variable, index): Value => {
      const name = this.#decodedNames[index];
      if (name === undefined || at > body.length) return undefined;
      const prefix = `${name}=`;
      if (variable.explode) {
        const start = at;
        while (at <= body.length && body.startsWith(prefix, at)) at = itemEnd() + 1;
        return at > start ? new ListText(body.slice(start, at - 1), separator, prefix.length) : undefined;
      }
      const end = itemEnd();
      if (trimsEmpty && end - at === name.length && body.startsWith(name, at)) {
        at = end + 1;
        return '';
      }
      if (!body.startsWith(prefix, at) || (trimsEmpty && end === at + prefix.length)) return undefined;
      const value = body.slice(at + prefix.length, end);
      at = end + 1;
      return listed(value);
    });
    return at === body.length + 1 ? values : undefined;
  }
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
  // An exploded occurrence reads a list where a simple one reads a string: `x` expands as `[x]` does.
  const [first, second] = [a.value, b.value].map((value) => (value instanceof ListText ? (value.single ?? value) : value));
  meter.steps += Math.min(textOf(first).length, textOf(second).length);
  if (typeof first === 'string' && typeof second === 'string' && !(a.exact && b.exact)) {
    const [longer, shorter] = first.length >= second.length ? [first, second] : [second, first];
    const [longerReading, shorterReading] = longer === first ? [a, b] : [b, a];
    // Only a reading cut by its prefix modifier can be shorter than the value.
    if (!longer.startsWith(shorter) || (shorter.length < longer.length && shorterReading.exact)) return undefined;
    return { value: longer, exact: longerReading.exact || shorterReading.exact };
  }
  if (first instanceof ListText && second instanceof ListText) {
    const same = first.separator === second.separator && first.itemPrefix === second.itemPrefix ? first.text === second.text : sameItems(first.items, second.items);
    return same ? a : undefined;
  }
  return first === second ? { value: first, exact: true } : undefined;
}

function textOf(value: string | ListText | undefined): string {
  return value instanceof ListText ? value.text : (value ?? '');
}

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
