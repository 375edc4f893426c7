import { InvalidDomainError, normaliseDomain } from '../common/domain-rules';
import { Problem } from '../http/problem';

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
