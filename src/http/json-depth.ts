import { Problem, type ProblemKind } from './problem';

/**
 * Deeper JSON documents are refused. Host options nest a handful of levels and metadata two;
 * a limit keeps recursive code (the schema validator, merge patch, structured clone across
 * Durable Object RPC) from running out of stack on a hostile document.
 */
export const maxJsonDepth = 64;

const quote = 0x22;
const backslash = 0x5c;
const openers = new Set([0x5b, 0x7b]); // [ {
const closers = new Set([0x5d, 0x7d]); // ] }

/**
 * Whether JSON text nests arrays and objects more than `maxJsonDepth` levels deep. It scans
 * the text instead of the parsed value: JSON.parse itself overflows the stack on deep enough
 * nesting. Brackets inside strings do not count; text that is not JSON is left to JSON.parse.
 */
export function exceedsMaxJsonDepth(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === backslash) index++;
      else if (code === quote) inString = false;
    } else if (code === quote) {
      inString = true;
    } else if (openers.has(code)) {
      if (++depth > maxJsonDepth) return true;
    } else if (closers.has(code)) {
      depth--;
    }
  }
  return false;
}

/** 400 for a JSON document (a body, or a deploy's configuration field) nested past `maxJsonDepth`. */
export function jsonTooDeep(kind: ProblemKind, what: string): Problem {
  return new Problem(kind, `${what} nests arrays and objects more than ${maxJsonDepth} levels deep.`, {
    extensions: { limit: 'MAX_JSON_DEPTH', value: maxJsonDepth },
  });
}
