import { Problem } from './http/problem';

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ipv4 = /^\d+(?:\.\d+){3}$/;

/**
 * Normalises a site's domain as DESIGN ("Domains") says: IDN to punycode, lower case, one
 * trailing dot dropped; throws `invalid-domain` for anything that cannot be a hosted site.
 * The WHATWG URL parser does the IDNA (UTS #46) mapping; the checks after it are ours.
 */
export function parseDomain(input: string, apiHostnames: readonly string[]): string {
  const refuse = (why: string): never => {
    throw new Problem('invalid-domain', `"${input}" is not a valid domain: ${why}.`);
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
  if (apiHostnames.includes(ascii)) refuse('it is the API host');
  return ascii;
}

const parsedHostnames = new Map<string, readonly string[]>();

/** `API_HOSTNAMES` as a list: read on every request, so split once per value. */
export function apiHostnames(value: string): readonly string[] {
  let names = parsedHostnames.get(value);
  if (!names) {
    names = value.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
    parsedHostnames.set(value, names);
  }
  return names;
}
