import { terminalSafe } from '../../src/common/control-characters.ts';
import type { ServiceInfo } from '../../src/common/api-types.ts';
import { ApiClient } from '../api.ts';
import { knownOrigin } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { printJson } from '../format.ts';
import { version } from '../version.ts';

/**
 * `sitehost --version`: the CLI's version, and the service's it talks to (`GET /v2/info`, no token
 * needed) when an origin is known. The CLI's version is the answer: a service that cannot be asked
 * is said on the second line, and the exit code stays 0.
 */
export async function showVersion(options: { json?: boolean }): Promise<void> {
  const origin = await knownOrigin();
  const service = origin === undefined ? undefined : await serviceVersion(origin);
  if (options.json) {
    printJson({ cli: version, ...(origin === undefined ? {} : { service: { origin, ...service } }) });
    return;
  }
  console.log(`sitehost-cli ${version}`);
  if (origin === undefined) console.log('service: none known (sitehost login, or SITEHOST_ORIGIN, names one)');
  else if (service?.version !== undefined) console.log(`service ${terminalSafe(service.version)} at ${origin}`);
  else console.log(`service at ${origin}: ${terminalSafe(service?.error ?? 'unknown')}`);
}

async function serviceVersion(origin: string): Promise<{ version?: string; error?: string }> {
  try {
    return { version: (await new ApiClient({ origin, token: '' }).json<ServiceInfo>('/v2/info')).version };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    // A service older than GET /v2/info answers 404: it names no version.
    return { error: error.status === 404 ? 'it names no version' : error.message };
  }
}
