import pc from 'picocolors';
import { terminalSafe } from '../src/common/control-characters.ts';
import { isOlderVersion } from '../src/common/service-version.ts';
import { version } from './version.ts';

let warned = false;

/**
 * Warns once per run, on standard error, when the service names a newer version than this CLI's
 * (every answer carries it: `Sitehost-Version`), with the command that installs the service's own.
 */
export function noticeServiceVersion(origin: string, serviceVersion: string | null): void {
  if (warned || serviceVersion === null || isOlderVersion(version, serviceVersion) !== true) return;
  warned = true;
  const safe = terminalSafe(serviceVersion);
  process.stderr.write(
    pc.yellow(`This sitehost CLI (${version}) is older than the service at ${terminalSafe(origin)} (${safe}). Install the service's own: npm install --global ${terminalSafe(origin)}/cli/sitehost-cli.tgz\n`),
  );
}
