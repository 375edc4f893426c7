// The rules a hosted site's domain must meet (docs/design.md, "Domains"). Shared by the Worker
// (domain-name.ts) and the CLI, which checks a domain before it uploads: it imports nothing
// and uses only erasable TypeScript, so Node runs it as the CLI's TypeScript.

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ipv4 = /^\d+(?:\.\d+){3}$/;

/** A name that cannot be a hosted site's domain; the message says why. */
export class InvalidDomainError extends Error {
  constructor(input: string, why: string) {
    super(`"${input}" is not a valid domain: ${why}.`);
    this.name = 'InvalidDomainError';
  }
}

/**
 * Normalises a domain: IDN to punycode, lower case, one trailing dot dropped; throws
 * `InvalidDomainError` for anything that cannot be a hosted site. The WHATWG URL parser does
 * the IDNA (UTS #46) mapping; the checks after it are ours.
 */
export function normaliseDomain(input: string): string {
  const refuse = (why: string): never => {
    throw new InvalidDomainError(input, why);
  };
  const trimmed = input.endsWith('.') ? input.slice(0, -1) : input;
  if (trimmed === '') refuse('it is empty');
  if (trimmed.includes('*')) refuse('wildcards are not allowed');
  if (/[\s/\\?#@:%\[\]]/.test(trimmed)) refuse('it contains characters a hostname cannot have');
  if (ipv4.test(trimmed)) refuse('IP addresses are not allowed');
  let ascii = '';
  try {
    ascii = new URL(`http://${trimmed}/`).hostname;
  } catch {
    refuse('it is not a hostname');
  }
  if (ipv4.test(ascii)) refuse('IP addresses are not allowed');
  if (ascii.length > 253) refuse('it is longer than 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) refuse('it needs at least two labels, like example.com');
  for (const part of labels) {
    if (part === '') refuse('it has an empty label');
    if (part.length > 63) refuse(`the label "${part}" is longer than 63 characters`);
    if (!label.test(part)) {
      refuse(`the label "${part}" must be letters, digits and hyphens, not starting or ending with a hyphen`);
    }
  }
  if (ascii === 'localhost' || ascii.endsWith('.localhost')) refuse('names under .localhost are reserved');
  return ascii;
}
