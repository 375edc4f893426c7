import type { Problem } from '../http/problem';
import type { PartReceiver } from './multipart-reader';

/** What a part that carries a document (not a file) may hold, and the problems it is refused with. */
export interface TextPartRules {
  maxBytes: number;
  tooLarge: () => Problem;
  notText: () => Problem;
}

/**
 * Decodes a part as UTF-8 text as it streams, refusing it at the byte over `maxBytes`, and hands
 * the whole text to `done`: the configuration of a deploy, the manifest of an incremental one.
 */
export function textPart(rules: TextPartRules, done: (text: string) => void | Promise<void>): PartReceiver {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let size = 0;
  let text = '';
  const decode = (bytes?: Uint8Array): string => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw rules.notText();
    }
  };
  return {
    async write(bytes) {
      size += bytes.byteLength;
      if (size > rules.maxBytes) throw rules.tooLarge();
      text += decode(bytes);
    },
    async end() {
      await done(text + decode());
    },
  };
}
