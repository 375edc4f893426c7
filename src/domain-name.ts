import { InvalidDomainError, normaliseDomain } from './domain-rules';
import { Problem } from './http/problem';

/**
 * Normalises a site's domain (domain-rules.ts) and refuses the API's own hostnames; throws
 * `invalid-domain` for anything that cannot be a hosted site.
 */
export function parseDomain(input: string, apiHostnames: readonly string[]): string {
  let ascii: string;
  try {
    ascii = normaliseDomain(input);
  } catch (error) {
    if (error instanceof InvalidDomainError) throw new Problem('invalid-domain', error.message);
    throw error;
  }
  if (apiHostnames.includes(ascii)) throw new Problem('invalid-domain', new InvalidDomainError(input, 'it is the API host').message);
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
