/**
 * The Content-Disposition header of a multipart/form-data part (RFC 7578 §4.2), read the way
 * browsers write it: HTML's multipart/form-data encoding puts a name between quotes as it is,
 * except `"`, CR and LF, written as `%22`, `%0D` and `%0A`; a backslash is itself, and `%` is not
 * escaped. So `%22`, `%0D` and `%0A` are read back as the characters they stand for, and a name
 * whose own text holds them (`a%22b`) reads as one with the character (`a"b`): the encoding cannot
 * tell them apart. `filename*` (RFC 8187) says a name unambiguously and wins over `filename`.
 *
 * Hand-written because header parsers follow RFC 9110's quoted-string instead, where a backslash
 * escapes the next character (`a\b.html` became `ab.html`), and make the best of what no browser
 * sends (an unterminated quote, a repeated parameter, the last one winning), where this refuses.
 */

/** What the header says: the form field's name and, for a file, its name. */
export interface PartDisposition {
  name: string;
  filename?: string;
}

/** A Content-Disposition no browser would send; the message completes "a part's Content-Disposition …". */
export class InvalidDisposition extends Error {
  override readonly name = 'InvalidDisposition';
}

const whitespace = /[ \t]*/y;
const token = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
/** A value without quotes: a token, or a `/` in it as well, which RFC 8187 values often hold raw (Python's `quote()` leaves it). */
const bareValue = /[!#$%&'*+\-./^_`|~0-9A-Za-z]+/y;
const quotedString = /"([^"\r\n]*)"/y;
/** RFC 8187's ext-value: charset, optional language, then the value with its bytes percent-encoded. */
const extValue = /^(UTF-8|ISO-8859-1)'[A-Za-z0-9-]*'((?:[^%]|%[0-9A-Fa-f]{2})*)$/i;
const htmlEscapes: Record<string, string> = { '%22': '"', '%0D': '\r', '%0A': '\n' };

export function parsePartDisposition(header: string): PartDisposition {
  const parameters = parseParameters(header);
  const name = parameters.get('name');
  if (name === undefined) throw new InvalidDisposition('has no name');
  const extended = parameters.get('filename*');
  const plain = parameters.get('filename');
  return {
    name: decodeHtmlEscapes(name),
    filename: extended !== undefined ? decodeExtValue(extended) : plain && decodeHtmlEscapes(plain),
  };
}

/** `form-data` and its parameters (names lower-cased), each value as sent. */
function parseParameters(header: string): Map<string, string> {
  let at = 0;
  const match = (pattern: RegExp): RegExpExecArray | null => {
    pattern.lastIndex = at;
    const found = pattern.exec(header);
    if (found) at = pattern.lastIndex;
    return found;
  };
  match(whitespace);
  if (match(token)?.[0].toLowerCase() !== 'form-data') throw new InvalidDisposition('is not "form-data"');
  const parameters = new Map<string, string>();
  for (match(whitespace); at < header.length; match(whitespace)) {
    if (header[at++] !== ';') throw new InvalidDisposition('has text that is not a parameter');
    match(whitespace);
    const name = match(token)?.[0].toLowerCase();
    if (name === undefined || header[at++] !== '=') throw new InvalidDisposition('has a parameter without a name or value');
    const value = header[at] === '"' ? match(quotedString)?.[1] : match(bareValue)?.[0];
    if (value === undefined) throw new InvalidDisposition(`has a ${name} that is neither a token nor a closed quoted string`);
    if (parameters.has(name)) throw new InvalidDisposition(`repeats its ${name}`);
    parameters.set(name, value);
  }
  return parameters;
}

function decodeHtmlEscapes(value: string): string {
  return value.replace(/%22|%0D|%0A/g, (escape) => htmlEscapes[escape]!);
}

function decodeExtValue(value: string): string {
  const [, charset, encoded] = extValue.exec(value) ?? [];
  const refuse = () => new InvalidDisposition('has a filename* that is not RFC 8187 UTF-8 or ISO-8859-1');
  if (charset === undefined || encoded === undefined) throw refuse();
  if (charset.toUpperCase() === 'ISO-8859-1') {
    return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw refuse();
  }
}
