import { exceedsMaxJsonDepth, jsonTooDeep } from '../http/json-depth';
import { Problem } from '../http/problem';
import { validateHostConfiguration } from './host-schema';
import { checkConfigurationLimits } from '../rules/configuration-limits';

/** Host options, as `schema/host.schema.json` describes them. */
export type HostConfiguration = Record<string, unknown>;

/**
 * Parses JSON text of host options; 400 `invalid-configuration` when it is not JSON, nests
 * too deep or is not valid.
 */
export function parseHostConfiguration(text: string): HostConfiguration {
  if (exceedsMaxJsonDepth(text)) throw jsonTooDeep('invalid-configuration', 'The configuration');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Problem('invalid-configuration', `The configuration is not valid JSON: ${(error as Error).message}`, {
      errors: [{ pointer: '', message: 'not valid JSON' }],
    });
  }
  return checkHostConfiguration(value);
}

/** Validates host options against the host schema; 400 with `errors[].pointer` when invalid. */
export function checkHostConfiguration(value: unknown): HostConfiguration {
  const errors = validateHostConfiguration(value);
  if (errors.length > 0) {
    throw new Problem('invalid-configuration', 'The configuration does not comply with the host schema.', {
      errors,
    });
  }
  checkConfigurationLimits(value as HostConfiguration);
  return value as HostConfiguration;
}
