/**
 * The work a match does, in steps: one for each character of the request path it reads,
 * compares or copies, and one for each part of the template it visits. Tests and the bench
 * read it to hold matching to a bound; serving passes none.
 */
export interface MatchMeter {
  steps: number;
}

const slash = 0x2f;

/**
 * A literal of a template, found in a path by Knuth–Morris–Pratt in either direction: each
 * character of the path is read once, plus at most once more on a partial match that failed,
 * whatever the literal (a regular expression backtracks, and `indexOf` of a whole literal
 * promises no bound).
 */
export class LiteralSearch {
  readonly #text: string;
  readonly #forward: Int32Array;
  readonly #reversed: string;
  readonly #backward: Int32Array;

  constructor(text: string) {
    this.#text = text;
    this.#forward = failureTable(text);
    // Code units, as the path is read backwards: a surrogate pair's halves swap too.
    this.#reversed = text.split('').reverse().join('');
    this.#backward = failureTable(this.#reversed);
  }

  /**
   * Where the first occurrence at or after `from` starts, or -1. With `inSegment`, text before
   * it may not hold a `/` (the literal holds none): a `/` ends the search.
   */
  first(path: string, from: number, inSegment: boolean, meter: MatchMeter): number {
    const at = scan(path, this.#text, this.#forward, from, path.length, 1, inSegment, meter);
    return at < 0 ? -1 : at - this.#text.length + 1;
  }

  /** Where the last occurrence that ends by `end` and starts at `floor` or after ends, or -1; `inSegment` as in `first`. */
  last(path: string, end: number, floor: number, inSegment: boolean, meter: MatchMeter): number {
    const at = scan(path, this.#reversed, this.#backward, end - 1, floor - 1, -1, inSegment, meter);
    return at < 0 ? -1 : at + this.#text.length;
  }
}

/**
 * Reads `path` from `from` towards `to` (excluded) by `step` until `text` is read whole: where
 * its last character read stands, or -1. Across a whole path, it skips to the next place the
 * text's first character stands with a native search, which reads each character once; within
 * a segment it reads one character at a time, so as to stop at the `/` that ends it without
 * reading past it.
 */
function scan(path: string, text: string, table: Int32Array, from: number, to: number, step: 1 | -1, inSegment: boolean, meter: MatchMeter): number {
  const first = text.charAt(0);
  let steps = 0;
  let matched = 0;
  let found = -1;
  for (let at = from; step > 0 ? at < to : at > to; at += step) {
    if (matched === 0 && !inSegment) {
      const next = step > 0 ? path.indexOf(first, at) : path.lastIndexOf(first, at);
      const beyond = next < 0 || (step > 0 ? next >= to : next <= to);
      steps += beyond ? Math.abs(to - at) : Math.abs(next - at);
      if (beyond) break;
      at = next;
    }
    const char = path.charCodeAt(at);
    steps += 1;
    if (inSegment && char === slash) break;
    while (matched > 0 && text.charCodeAt(matched) !== char) {
      matched = table[matched - 1]!;
      steps += 1;
    }
    if (text.charCodeAt(matched) === char) matched += 1;
    if (matched === text.length) {
      found = at;
      break;
    }
  }
  meter.steps += steps;
  return found;
}

/** For each prefix of `text`, the length of its longest proper prefix that is also its suffix. */
function failureTable(text: string): Int32Array {
  const table = new Int32Array(text.length);
  let length = 0;
  for (let at = 1; at < text.length; at += 1) {
    while (length > 0 && text.charCodeAt(at) !== text.charCodeAt(length)) length = table[length - 1]!;
    if (text.charCodeAt(at) === text.charCodeAt(length)) length += 1;
    table[at] = length;
  }
  return table;
}

/**
 * The first position at or after `from` holding `char` or, with `inSegment`, a `/`; the path's
 * length when none. Across the whole path a native search finds it; within a segment it is
 * read one character at a time, so as not to read past the segment.
 */
export function nextStop(path: string, from: number, char: number, inSegment: boolean, meter: MatchMeter): number {
  if (!inSegment) {
    const found = path.indexOf(String.fromCharCode(char), from);
    meter.steps += (found < 0 ? path.length : found + 1) - from;
    return found < 0 ? path.length : found;
  }
  for (let at = from; at < path.length; at += 1) {
    meter.steps += 1;
    const found = path.charCodeAt(at);
    if (found === char || found === slash) return at;
  }
  return path.length;
}

/** The characters a template's tail looks for leftwards: the segment boundary and the prefixes of expressions that stay in a segment. */
const marks = new Set([slash, ...['.', ';', '?', '&'].map((char) => char.charCodeAt(0))]);

/**
 * The marks (`/`, and the prefixes `.`, `;`, `?`, `&`) of the path, found leftwards from its
 * end. A match reads its template's tail from the right, and a search for one mark that
 * finds none (an optional `{.ext}` absent) must not make the next search read the same
 * characters again: every mark seen is recorded, so each character is read once per match.
 */
export class MarksBefore {
  readonly #path: string;
  readonly #floor: number;
  readonly #meter: MatchMeter;
  /** Every position from `low` to the end of the path has been read, or passed over by the match. */
  #low: number;
  /** The positions of each mark read, nearest the end first, and how many of them lie at or after the last `end` asked. */
  readonly #found = new Map<number, { positions: number[]; passed: number }>();

  constructor(path: string, floor: number, meter: MatchMeter) {
    this.#path = path;
    this.#floor = floor;
    this.#meter = meter;
    this.#low = path.length;
  }

  /**
   * The nearest position before `end`, at the floor or after, of the mark `char` within the
   * segment that holds `end - 1`; for `/` itself, the nearest `/`. -1 when there is none.
   * `end` never grows from one call to the next.
   */
  nearest(char: number, end: number): number {
    if (end < this.#low) {
      this.#low = end;
      this.#found.clear();
    }
    const known = this.#before(char, end);
    const boundary = char === slash ? known : this.#before(slash, end);
    if (known >= 0 && known >= boundary) return known;
    if (boundary >= 0) return -1;
    for (let at = this.#low - 1; at >= this.#floor; at -= 1) {
      this.#meter.steps += 1;
      this.#low = at;
      const found = this.#path.charCodeAt(at);
      if (!marks.has(found)) continue;
      this.#record(found, at);
      if (found === char) return at;
      if (found === slash) return -1;
    }
    this.#low = this.#floor;
    return -1;
  }

  #before(char: number, end: number): number {
    const found = this.#found.get(char);
    if (!found) return -1;
    while (found.passed < found.positions.length && found.positions[found.passed]! >= end) found.passed += 1;
    return found.positions[found.passed] ?? -1;
  }

  #record(char: number, at: number): void {
    let found = this.#found.get(char);
    if (!found) this.#found.set(char, (found = { positions: [], passed: 0 }));
    found.positions.push(at);
  }
}
