import { InvalidDomainError, normaliseDomain } from '../src/common/domain-rules.ts';
import { CliError } from './errors.ts';

/**
 * The site's domain, normalised and checked by the service's own rules before any file is
 * read or any byte sent. Only the rule against the API's own hostnames is left to the
 * service, which alone knows them.
 */
export function checkedDomain(input: string): string {
  try {
    return normaliseDomain(input);
  } catch (error) {
    if (error instanceof InvalidDomainError) throw new CliError('usage', `Invalid domain: ${error.message}`, { cause: error });
    throw error;
  }
}
