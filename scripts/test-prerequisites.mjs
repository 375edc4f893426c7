// `npm test`'s first step: the test suite drives Debian's Chromium (the dashboard's browser tests)
// and Debian's Pebble (the ACME tests), installed when missing (scripts/debian-tools.mjs).
// CHROMIUM_PATH and PEBBLE_PATH point at binaries elsewhere (PEBBLE_PATH: the `pebble` binary,
// with `pebble-challtestsrv` beside it).
import { dirname, join } from 'node:path';
import { ensureDebianTools } from './debian-tools.mjs';

ensureDebianTools(
  [
    { binary: process.env.CHROMIUM_PATH ?? 'chromium', overriddenBy: 'CHROMIUM_PATH', debianPackage: 'chromium' },
    { binary: process.env.PEBBLE_PATH ?? 'pebble', overriddenBy: 'PEBBLE_PATH', debianPackage: 'pebble' },
    {
      binary: process.env.PEBBLE_PATH ? join(dirname(process.env.PEBBLE_PATH), 'pebble-challtestsrv') : 'pebble-challtestsrv',
      overriddenBy: 'PEBBLE_PATH',
      debianPackage: 'pebble',
    },
  ],
  'The tests',
);
