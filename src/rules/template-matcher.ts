import { type TemplatePart, parseTemplate } from './template-parts';
import { ExpressionReader, type Reading, agreeing, readingOf } from './expression-values';
import { LiteralSearch, MarksBefore, type MatchMeter, nextStop } from './path-scan';

/** A literal of a template, as it reads in a decoded path. */
interface Literal {
  /** Decoded; a `/` encoded in the template (`%2F`) is a character no decoded segment holds. */
  text: string;
  search: LiteralSearch;
  /** Where its first and last `/` are, -1 for none: a segment boundary pins it in place. */
  firstSlash: number;
  lastSlash: number;
}

type Piece = Literal | ExpressionReader;

/** The values read from a path, by variable name (no prototype: any name is a plain key). */
export type MatchedValues = Record<string, string | string[]>;

/**
 * A URI template compiled to read request paths in time linear in the path, whatever the
 * template. Written by hand because no library does: `uri-templates` reads values back but
 * must expand them again to check them (the same variable 409 times costs 409 expansions of
 * the whole path), and a router that builds one automaton for a set of templates
 * (`uri-template-router`) picks the most specific template instead of the first in the
 * configured order, and its automaton can grow exponentially with the templates.
 *
 * It reads the path once and never goes back:
 * - The template is cut at its last expression that can span segments (`{+path}`,
 *   `{/path*}`, `{#x}`), or else at its last expression. That one takes what the others leave.
 * - The parts before it are read from the left: a literal where it stands; an expression up
 *   to the first place where what follows it can start (lazily), within its segment unless it
 *   spans segments; one with a prefix (`{/a}`, `{.ext}`) is defined only if its prefix is there.
 * - The parts after it, which all stay within a segment, are read from the right, the same way
 *   mirrored: `/{+dir}/{file}.html` gives `file` the last segment's name.
 * - A variable named twice reads one value: each reading after the first must agree.
 * A path matches when every part reads; the values read expand back to the path. A path that
 * some values expand to, but only with other choices than these, does not match (`{/a}/b`
 * reads `/b` into `a` and then misses `/b`): the matcher never tries a second choice.
 */
export class TemplateMatcher {
  /** Empty when a literal cannot be decoded or holds an encoded `/`: no request path matches. */
  readonly #pieces: Piece[];
  /** Where the expression that takes the rest stands; -1 for a template without expressions. */
  readonly #middle: number;

  constructor(source: string) {
    const pieces = parseTemplate(source).map(compilePart);
    this.#pieces = pieces.every((piece) => piece !== undefined) ? pieces : [];
    const readers = this.#pieces.map((piece) => (piece instanceof ExpressionReader ? piece : undefined));
    const spanning = readers.findLastIndex((reader) => reader?.spansSegments);
    this.#middle = spanning >= 0 ? spanning : readers.findLastIndex((reader) => reader !== undefined);
  }

  /** The literals, expressions and variables of the template: each costs a match one step besides reading the path. */
  get parts(): number {
    return this.#pieces.reduce((parts, piece) => parts + 1 + (piece instanceof ExpressionReader ? piece.expression.variables.length : 0), 0);
  }

  /** The values the decoded path `/a/b` (a directory's with its trailing `/`) reads, or undefined when it does not match. */
  match(path: string, meter: MatchMeter): MatchedValues | undefined {
    if (this.#middle < 0) {
      // No expression: the template is one literal (or none), which the path is or is not.
      const [only] = this.#pieces as Literal[];
      meter.steps += 1 + Math.min(path.length, only?.text.length ?? 0);
      return only !== undefined && path === only.text ? Object.create(null) : undefined;
    }
    const values = new Map<string, Reading>();
    const head = this.#readHead(path, values, meter);
    if (head < 0) return undefined;
    const tail = this.#readTail(path, head, values, meter);
    if (tail < 0) return undefined;
    const middle = this.#pieces[this.#middle] as ExpressionReader;
    meter.steps += 1;
    const text = path.slice(head, tail);
    if (middle.first !== '' && text !== '' && !text.startsWith(middle.first)) return undefined;
    const body = text === '' && middle.first !== '' ? undefined : text.slice(middle.first.length);
    if (!read(middle, body, false, values, meter)) return undefined;
    const matched: MatchedValues = Object.create(null);
    for (const [name, { value }] of values) {
      if (typeof value === 'string') matched[name] = value;
      else if (value?.single !== undefined) matched[name] = [value.single];
      // A longer list is split when an expansion first reads it.
      else if (value) Object.defineProperty(matched, name, { enumerable: true, get: () => value.items });
    }
    return matched;
  }

  /** Reads the parts before the middle one from the left; where they end, or -1. */
  #readHead(path: string, values: Map<string, Reading>, meter: MatchMeter): number {
    let at = 0;
    /** Where the search that ended the last expression found the literal that follows it. */
    let found = -1;
    for (let index = 0; index < this.#middle; index += 1) {
      const piece = this.#pieces[index]!;
      meter.steps += 1;
      if (!(piece instanceof ExpressionReader)) {
        if (found !== at) {
          meter.steps += Math.min(piece.text.length, path.length - at);
          if (!path.startsWith(piece.text, at)) return -1;
        }
        at += piece.text.length;
        continue;
      }
      if (piece.first !== '' && !path.startsWith(piece.first, at)) {
        if (!read(piece, undefined, true, values, meter)) return -1;
        continue;
      }
      const start = at + piece.first.length;
      const next = this.#pieces[index + 1]!;
      const end = headEnd(piece, next, path, start, meter);
      if (end < 0 || !read(piece, path.slice(start, end), !piece.spansSegments, values, meter)) return -1;
      found = next instanceof ExpressionReader || (!piece.spansSegments && next.firstSlash >= 0) ? -1 : end;
      at = end;
    }
    return at;
  }

  /** Reads the parts after the middle one from the right, none before `floor`; where they start, or -1. */
  #readTail(path: string, floor: number, values: Map<string, Reading>, meter: MatchMeter): number {
    let at = path.length;
    let recorded: MarksBefore | undefined;
    const marks = () => (recorded ??= new MarksBefore(path, floor, meter));
    /** Where the search that started the last expression found the literal before it to end. */
    let found = -1;
    for (let index = this.#pieces.length - 1; index > this.#middle; index -= 1) {
      const piece = this.#pieces[index]!;
      meter.steps += 1;
      if (!(piece instanceof ExpressionReader)) {
        if (found !== at) {
          meter.steps += Math.min(piece.text.length, at - floor);
          if (at - piece.text.length < floor || !path.startsWith(piece.text, at - piece.text.length)) return -1;
        }
        at -= piece.text.length;
        continue;
      }
      if (piece.first !== '') {
        const first = marks().nearest(piece.first.charCodeAt(0), at);
        const body = first < 0 ? undefined : path.slice(first + 1, at);
        if (!read(piece, body, true, values, meter)) return -1;
        if (first >= 0) at = first;
        found = -1;
        continue;
      }
      const previous = this.#pieces[index - 1]!;
      const start = tailStart(previous, path, at, floor, marks, meter);
      if (start < 0 || !read(piece, path.slice(start, at), true, values, meter)) return -1;
      found = previous instanceof ExpressionReader || previous.lastSlash >= 0 ? -1 : start;
      at = start;
    }
    return at;
  }
}

/**
 * Where an expression read from the left ends, its body starting at `start`, lazily: at the
 * first place the next part can start, within the segment unless it spans segments; -1 when
 * the literal that follows it is not there.
 */
function headEnd(reader: ExpressionReader, next: Piece, path: string, start: number, meter: MatchMeter): number {
  const inSegment = !reader.spansSegments;
  if (next instanceof ExpressionReader) {
    // Two expressions without text between them: the first takes nothing unless the second has a prefix to stop at.
    return next.first === '' ? start : nextStop(path, start, next.first.charCodeAt(0), inSegment, meter);
  }
  if (inSegment && next.firstSlash >= 0) {
    // The literal's first `/` is the end of this segment.
    const end = nextStop(path, start, 0x2f, true, meter) - next.firstSlash;
    return end >= start ? end : -1;
  }
  return next.search.first(path, start, inSegment, meter);
}

/** Where an expression without prefix read from the right starts, its body ending at `end`: the mirror of `headEnd`. */
function tailStart(previous: Piece, path: string, end: number, floor: number, marks: () => MarksBefore, meter: MatchMeter): number {
  if (previous instanceof ExpressionReader) return end;
  if (previous.lastSlash >= 0) {
    const boundary = marks().nearest(0x2f, end);
    const start = boundary < 0 ? -1 : boundary + previous.text.length - previous.lastSlash;
    return start >= floor && start <= end ? start : -1;
  }
  return previous.search.last(path, end, floor, true, meter);
}

/**
 * Reads an expression's body (undefined: the expression is absent; slices of the path are
 * views, not copies) into `values`; false when it cannot be read or disagrees with an earlier
 * reading of the same variable.
 */
function read(reader: ExpressionReader, body: string | undefined, withinSegment: boolean, values: Map<string, Reading>, meter: MatchMeter): boolean {
  const { variables } = reader.expression;
  meter.steps += variables.length;
  const read = body === undefined ? undefined : reader.read(body, withinSegment, meter);
  if (body !== undefined && !read) return false;
  for (let index = 0; index < variables.length; index += 1) {
    const { name, maxLength } = variables[index]!;
    const reading = readingOf(read?.[index], maxLength);
    const earlier = values.get(name);
    const agreed = earlier ? agreeing(earlier, reading, meter) : reading;
    if (!agreed) return false;
    values.set(name, agreed);
  }
  return true;
}

function compilePart(part: TemplatePart): Piece | undefined {
  if (typeof part !== 'string') return new ExpressionReader(part);
  const text = decodedLiteral(part);
  return text === undefined ? undefined : literal(text);
}

function literal(text: string): Literal {
  return { text, search: new LiteralSearch(text), firstSlash: text.indexOf('/'), lastSlash: text.lastIndexOf('/') };
}

/**
 * A literal as it reads in a decoded path: each segment percent-decoded and in NFC, as
 * request paths are. Undefined when it holds an encoded `/` or does not decode.
 */
function decodedLiteral(text: string): string | undefined {
  try {
    const segments = text.split('/').map((segment) => decodeURIComponent(segment).normalize('NFC'));
    return segments.some((segment) => segment.includes('/')) ? undefined : segments.join('/');
  } catch {
    return undefined;
  }
}
