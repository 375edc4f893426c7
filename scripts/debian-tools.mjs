// The Debian programs a step drives (the tests' Chromium and Pebble, the serving bench's wrk and
// nginx), installed when missing the way `playwright install --with-deps` installs a browser's
// system packages: apt-get as root, or through sudo when that needs no password; anywhere else
// it stops with one line naming what to install.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `binary` (a path, or a name looked up on PATH) can be run. */
function found(binary) {
  if (binary.includes('/')) return isExecutable(binary);
  return (process.env.PATH ?? '').split(delimiter).some((folder) => folder && isExecutable(join(folder, binary)));
}

/**
 * Installs the Debian packages of the `required` programs that cannot be run: each
 * `{ binary, debianPackage, overriddenBy? }`, `overriddenBy` the variable that points at a binary
 * elsewhere. `purpose` ("The tests") starts the messages. Exits the process, saying why, when one
 * is still missing.
 */
export function ensureDebianTools(required, purpose) {
  const missing = required.filter((tool) => !found(tool.binary));
  const badOverride = missing.find((tool) => tool.overriddenBy && process.env[tool.overriddenBy]);
  if (badOverride) {
    console.error(`${badOverride.overriddenBy} is set, but ${badOverride.binary} is not an executable.`);
    process.exit(1);
  }
  const packages = [...new Set(missing.map((tool) => tool.debianPackage))];
  if (packages.length === 0) return;
  const overrides = [...new Set(missing.flatMap((tool) => (tool.overriddenBy ? [tool.overriddenBy] : [])))].join(' / ');
  const orOverride = overrides ? `, or set ${overrides}` : '';
  const canApt = found('apt-get');
  const asRoot = process.getuid?.() === 0;
  const viaSudo = !asRoot && found('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (!canApt || (!asRoot && !viaSudo)) {
    console.error(`${purpose} need Debian's ${packages.join(' and ')}: run \`sudo apt-get install -y ${packages.join(' ')}\`${orOverride}.`);
    process.exit(1);
  }
  const [command, prefix] = asRoot ? ['apt-get', []] : ['sudo', ['apt-get']];
  console.log(`Installing ${packages.join(' and ')} for ${purpose.toLowerCase()} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync(command, [...prefix, ...args], { stdio: 'inherit', env }).status === 0;
  if (!apt(['update']) || !apt(['install', '-y', ...packages])) {
    console.error(`Installing ${packages.join(' and ')} failed: install them with apt-get${orOverride}.`);
    process.exit(1);
  }
  const stillMissing = required.filter((tool) => !found(tool.binary));
  if (stillMissing.length > 0) {
    console.error(`Still missing after apt-get: ${stillMissing.map((tool) => tool.binary).join(', ')}.`);
    process.exit(1);
  }
}
