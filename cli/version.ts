import { readFileSync } from 'node:fs';

/** The package's version, for `--version` and the User-Agent. */
export const version: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
