// `npm test`'s first step: the test suite drives Debian's Chromium (the dashboard's browser tests)
// and Debian's Pebble (the ACME tests). When one is missing it is installed the way
// `playwright install --with-deps` installs a browser's system packages: apt-get as root, or
// through sudo when that needs no password; anywhere else this stops with one line naming what to
// install. CHROMIUM_PATH and PEBBLE_PATH point at binaries elsewhere (PEBBLE_PATH: the `pebble`
// binary, with `pebble-challtestsrv` beside it).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The executables the tests start, each with the Debian package that ships it. */
const required = [
  { binary: process.env.CHROMIUM_PATH ?? 'chromium', overriddenBy: 'CHROMIUM_PATH', debianPackage: 'chromium' },
  { binary: process.env.PEBBLE_PATH ?? 'pebble', overriddenBy: 'PEBBLE_PATH', debianPackage: 'pebble' },
  {
    binary: process.env.PEBBLE_PATH ? join(dirname(process.env.PEBBLE_PATH), 'pebble-challtestsrv') : 'pebble-challtestsrv',
    overriddenBy: 'PEBBLE_PATH',
    debianPackage: 'pebble',
  },
];

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

const missing = required.filter((tool) => !found(tool.binary));
const badOverride = missing.find((tool) => process.env[tool.overriddenBy]);
if (badOverride) {
  console.error(`${badOverride.overriddenBy} is set, but ${badOverride.binary} is not an executable.`);
  process.exit(1);
}
const packages = [...new Set(missing.map((tool) => tool.debianPackage))];
if (packages.length > 0) {
  const canApt = found('apt-get');
  const asRoot = process.getuid?.() === 0;
  const viaSudo = !asRoot && found('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (!canApt || (!asRoot && !viaSudo)) {
    const overrides = [...new Set(missing.map((tool) => tool.overriddenBy))].join(' / ');
    console.error(`The tests need Debian's ${packages.join(' and ')}: run \`sudo apt-get install -y ${packages.join(' ')}\`, or set ${overrides}.`);
    process.exit(1);
  }
  const [command, prefix] = asRoot ? ['apt-get', []] : ['sudo', ['apt-get']];
  console.log(`Installing ${packages.join(' and ')} for the tests (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync(command, [...prefix, ...args], { stdio: 'inherit', env }).status === 0;
  if (!apt(['update']) || !apt(['install', '-y', ...packages])) {
    console.error(`Installing ${packages.join(' and ')} failed: install them with apt-get, or set ${missing[0].overriddenBy}.`);
    process.exit(1);
  }
  const stillMissing = required.filter((tool) => !found(tool.binary));
  if (stillMissing.length > 0) {
    console.error(`Still missing after apt-get: ${stillMissing.map((tool) => tool.binary).join(', ')}.`);
    process.exit(1);
  }
}
