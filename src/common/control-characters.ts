// Control characters in text one user writes and another's terminal shows (a deployment's
// message, a suspension's reason, metadata, problem details): ESC and BEL make escape sequences
// that retitle or clear a terminal, CR overwrites the line. The Worker refuses them where users
// write such text; the CLI escapes them wherever it prints what the server sent. Shared by both:
// it imports nothing and uses only erasable TypeScript.

/** Unicode's control characters (Cc: C0, DEL and C1), besides the line breaks `allowed` keeps. */
const controls = /\p{Cc}/gu;

/** `U+001B`: how a refusal or an escape names a character. */
function codeOf(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The first control character of `text` that `allowed` (tab and LF, say; a CR only as part of a
 * CR LF line break) does not take, named as `U+001B`; undefined when there is none.
 */
export function controlCharacterIn(text: string, allowed: { tab?: boolean; lineBreaks?: boolean } = {}): string | undefined {
  for (const match of text.matchAll(controls)) {
    const character = match[0];
    if (character === '\t' && allowed.tab) continue;
    if (character === '\n' && allowed.lineBreaks) continue;
    if (character === '\r' && allowed.lineBreaks && text[match.index + 1] === '\n') continue;
    return codeOf(character);
  }
  return undefined;
}

/**
 * `text` safe to print on a terminal: every control character but the line feeds and tabs of
 * multi-line text written as a `\u001b` escape, so that it shows as text and does nothing (in
 * JSON text the same escape reads back as the same character). Used by the CLI on every value the
 * server sent, where it prints it.
 */
export function terminalSafe(text: string): string {
  return text.replace(controls, (character) => (character === '\n' || character === '\t' ? character : `\\u${character.codePointAt(0)!.toString(16).padStart(4, '0')}`));
}
