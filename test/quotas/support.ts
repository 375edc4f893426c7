/** `size` characters of text that differ with `seed`: contents a site would not store already. */
export function noise(size: number, seed: number): string {
  let text = '';
  for (let i = 0; text.length < size; i++) text += ((seed * 7919 + i * 104729) % 1_000_003).toString(36);
  return text.slice(0, size);
}
