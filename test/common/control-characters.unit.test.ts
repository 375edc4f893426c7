import { describe, expect, it } from 'vitest';
import { controlCharacterIn, terminalSafe } from '../../src/common/control-characters';

describe('control characters', () => {
  it('names the first one a text holds, past the line breaks and tabs it may keep', () => {
    expect(controlCharacterIn('plain text, é and 🚀')).toBeUndefined();
    expect(controlCharacterIn('a\tb')).toBe('U+0009');
    expect(controlCharacterIn('a\tb\nc\r\nd', { tab: true, lineBreaks: true })).toBeUndefined();
    expect(controlCharacterIn('a\rb', { tab: true, lineBreaks: true })).toBe('U+000D');
    expect(controlCharacterIn('a\u001b[2J', { lineBreaks: true })).toBe('U+001B');
    expect(controlCharacterIn('\u0007')).toBe('U+0007');
    expect(controlCharacterIn('\u007f')).toBe('U+007F');
    expect(controlCharacterIn('\u009b')).toBe('U+009B');
  });

  it('escapes for a terminal everything that would act on it, keeping line feeds and tabs', () => {
    expect(terminalSafe('\u001b]0;owned\u0007\u001b[2J\rforged')).toBe('\\u001b]0;owned\\u0007\\u001b[2J\\u000dforged');
    expect(terminalSafe('two\nlines\tand a tab')).toBe('two\nlines\tand a tab');
    expect(terminalSafe('c1 \u009b and del \u007f')).toBe('c1 \\u009b and del \\u007f');
    // JSON text stays JSON, of the same value.
    const json = JSON.stringify({ message: 'csi \u009b del \u007f esc \u001b' });
    expect(JSON.parse(terminalSafe(json))).toEqual(JSON.parse(json));
    expect(terminalSafe(json)).not.toMatch(/\p{Cc}/u);
    expect(terminalSafe('café 🚀 "quoted"')).toBe('café 🚀 "quoted"');
  });
});
