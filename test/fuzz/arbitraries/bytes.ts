import fc from 'fast-check';

const shownChars = 3000;

/** A request body that fast-check prints as text in a counterexample, not as a list of byte values. */
export function printable(bytes: Uint8Array): Uint8Array {
  Object.defineProperty(bytes, fc.toStringMethod, {
    value: () => {
      let text: string;
      try {
        text = JSON.stringify(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
      } catch {
        text = `bytes ${JSON.stringify(new TextDecoder('latin1').decode(bytes))} (not UTF-8; shown as Latin-1)`;
      }
      return text.length > shownChars ? `${text.slice(0, shownChars)}… (${bytes.length} bytes)` : text;
    },
  });
  return bytes;
}

export function concat(...chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
