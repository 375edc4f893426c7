/** RFC 4648's base32 alphabet in lower case: every id is a valid DNS label, for its preview host. */
const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
/** 20 characters of 5 random bits: 100 bits, not to be guessed. */
const idLength = 20;

/** A new deployment id. */
export function newDeploymentId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(idLength));
  let id = '';
  for (const byte of bytes) id += alphabet[byte & 31];
  return id;
}

/** Whether `text` has the form of a deployment id (checked before any lookup). */
export function isDeploymentId(text: string): boolean {
  return new RegExp(`^[a-z2-7]{${idLength}}$`).test(text);
}
